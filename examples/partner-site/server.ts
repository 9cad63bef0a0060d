// A tiny partner site (its own origin and port) that shows both integrations of the ticketing
// service, on node:http and the SDK (packages/sdk, through partner-calls.ts):
//   - embedded: the page loads checkout.js from the service and opens the modal either with the
//     publishable key (the script creates the session) or with a session this server created with
//     its client credentials;
//   - redirect: this server creates a redirect session and sends the browser to the hosted page,
//     which comes back to /thanks;
//   - fulfilment: only ever from the server's own read of the session (status complete and order
//     paid) or from a verified order.paid webhook; the browser's onSuccess is never proof.
// The page sends a strict Content-Security-Policy with exactly what the service asks for
// (docs/partners/embedded-checkout.md), plus 'self' for the page's own script, styles and calls.
// It is also the fixture of the browser tests (test/embed/).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  TicketingError,
  WebhookVerificationError,
  type CheckoutSessionCreateParams,
} from '../../packages/sdk/src/index.ts';
import { createPartnerCalls, type PartnerCalls } from './partner-calls.ts';

export interface PartnerSiteOptions {
  /** this site's own origin, e.g. http://127.0.0.1:5173; its port is the one bound */
  url: string;
  /** the service's API_URL and SITE_URL */
  apiUrl: string;
  siteUrl: string;
  clientId: string;
  clientSecret: string;
  publishableKey: string;
  /** the event sold here; default: the first event on sale with a paid ticket */
  eventId?: string;
  /** the whsec_ secret of this site's webhook endpoint, when one is registered */
  webhookSecret?: string;
  /** told one line per verified webhook (main.ts prints them) */
  onWebhook?: (line: string) => void;
}

export interface Fulfilment {
  order_id: string;
  order_code: string;
  /** how we learned the order is paid */
  source: 'session_read' | 'webhook';
  at: string;
}

export interface PartnerSite {
  url: string;
  eventId: string;
  /** this site's calls of the API, through the SDK (its `client` is the TicketingClient) */
  service: PartnerCalls;
  /** orders fulfilled, by order id (each exactly once, whichever source came first) */
  fulfilments: Map<string, Fulfilment>;
  /** verified webhook deliveries, in arrival order (redeliveries of one id counted once) */
  webhooks: { id: string; type: string; order_id: string | null }[];
  close(): Promise<void>;
}

const STATIC: Record<string, { file: string; type: string }> = {
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};

function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

function readBody(request: IncomingMessage, limit = 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new Error('body too large'));
        request.destroy();
      } else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export async function startPartnerSite(options: PartnerSiteOptions): Promise<PartnerSite> {
  const own = new URL(options.url);
  const origin = own.origin;
  const site = new URL(options.siteUrl).origin;
  const api = new URL(options.apiUrl).origin;
  const service = createPartnerCalls({
    apiUrl: api,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
  });
  const eventId = options.eventId ?? (await service.defaultEventId());
  if (!eventId) throw new Error('the partner has no event on sale; create one or set EVENT_ID');
  const fulfilments = new Map<string, Fulfilment>();
  const webhooks: PartnerSite['webhooks'] = [];
  const files = new Map(
    Object.entries(STATIC).map(([path, { file, type }]) => [
      path,
      { type, body: readFileSync(new URL(`./public/${file}`, import.meta.url)) },
    ]),
  );

  // What the service asks for: script-src and frame-src (child-src for older browsers) for the
  // site, connect-src for the API (only the publishable-key flow calls it from the browser).
  const csp = [
    "default-src 'none'",
    `script-src 'self' ${site}`,
    `frame-src ${site}`,
    `child-src ${site}`,
    `connect-src 'self' ${api}`,
    "style-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    `form-action 'self' ${site}`,
    "frame-ancestors 'none'",
  ].join('; ');

  function fulfil(order: { id: string; code: string }, source: Fulfilment['source']): Fulfilment {
    const known = fulfilments.get(order.id);
    if (known) return known; // fulfil once, whether the read or the webhook came first
    const entry = { order_id: order.id, order_code: order.code, source, at: new Date().toISOString() };
    fulfilments.set(order.id, entry);
    return entry;
  }

  /** The server-side confirmation: the session is complete and its order is paid. */
  async function confirmSession(sessionId: string) {
    const session = await service.readSession(sessionId);
    const paid = session.status === 'complete' && session.order?.status === 'paid';
    return {
      fulfilled: paid,
      session_status: session.status,
      client_reference_id: session.client_reference_id,
      order: session.order,
      fulfilment: paid ? fulfil(session.order!, 'session_read') : null,
    };
  }

  function send(
    response: ServerResponse,
    status: number,
    type: string,
    body: string | Buffer,
    headers: Record<string, string> = {},
  ) {
    response.writeHead(status, {
      'content-type': type,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
      ...headers,
    });
    response.end(body);
  }
  const json = (response: ServerResponse, status: number, body: unknown) =>
    send(response, status, 'application/json; charset=utf-8', JSON.stringify(body));
  const page = (response: ServerResponse, status: number, title: string, main: string, data = '') =>
    send(
      response,
      status,
      'text/html; charset=utf-8',
      `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/style.css">
<script src="${escapeHtml(site)}/v1/checkout.js"></script>
<script src="/app.js" defer></script>
</head>
<body${data}>
<main>
${main}
</main>
</body>
</html>
`,
      { 'content-security-policy': csp, 'referrer-policy': 'strict-origin-when-cross-origin' },
    );

  function home(response: ServerResponse) {
    page(
      response,
      200,
      'Demo Running Club: register',
      `<h1>Demo Running Club</h1>
<p>Register for our next race. This page is a partner site of the ticketing service: it shows the
embedded checkout (checkout.js) both ways, and the hosted checkout by redirect.</p>
<fieldset>
<legend>Your details (optional, passed to the checkout as prefill)</legend>
<label>Name <input id="buyer-name" autocomplete="name"></label>
<label>E-mail <input id="buyer-email" type="email" autocomplete="email"></label>
<label>Phone <input id="buyer-phone" type="tel" autocomplete="tel"></label>
</fieldset>
<p><button type="button" id="buy-with-key">Register: checkout.js with our publishable key</button></p>
<p><button type="button" id="buy-with-session">Register: checkout.js with a session our server created</button></p>
<form method="post" action="/checkout/redirect"><button type="submit">Register on the hosted checkout page (redirect)</button></form>
<h2>What happened</h2>
<ol id="log"></ol>
<p id="fulfilment" role="status"></p>`,
      ` data-publishable-key="${escapeHtml(options.publishableKey)}" data-event-id="${escapeHtml(eventId!)}"`,
    );
  }

  async function thanks(response: ServerResponse, sessionId: string | null) {
    if (!sessionId) return page(response, 400, 'Missing session', '<h1>No session_id in the link.</h1>');
    const result = await confirmSession(sessionId);
    const main = result.fulfilled
      ? `<h1>Thank you!</h1><p id="confirmation">Order ${escapeHtml(result.order!.code)} is paid; your registration is confirmed.</p>`
      : `<h1>Payment not confirmed yet</h1><p id="confirmation">Session status: ${escapeHtml(result.session_status)}. Refresh in a moment.</p>`;
    page(response, 200, 'Thank you', `${main}<p><a href="/">Back</a></p>`);
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', origin);
    const route = `${request.method} ${url.pathname}`;
    const asset = files.get(url.pathname);
    if (request.method === 'GET' && asset) return send(response, 200, asset.type, asset.body);
    switch (route) {
      case 'GET /':
        return home(response);
      case 'POST /api/embedded-sessions': {
        // Our server creates the embedded session with the client credentials; the browser only
        // ever sees the session id.
        const input = JSON.parse((await readBody(request)) || '{}') as {
          prefill?: CheckoutSessionCreateParams['prefill'];
        };
        const session = await service.createEmbeddedSession({
          eventId: eventId!,
          embedOrigin: origin,
          clientReferenceId: `cart_${randomBytes(6).toString('hex')}`,
          ...(input.prefill && Object.keys(input.prefill).length > 0 && { prefill: input.prefill }),
        });
        return json(response, 201, { session_id: session.id });
      }
      case 'POST /checkout/redirect': {
        const session = await service.createRedirectSession({
          eventId: eventId!,
          returnOrigin: origin,
          clientReferenceId: `cart_${randomBytes(6).toString('hex')}`,
        });
        return send(response, 303, 'text/plain; charset=utf-8', '', { location: session.url });
      }
      case 'GET /thanks':
        return thanks(response, url.searchParams.get('session_id'));
      case 'GET /api/fulfilment': {
        const sessionId = url.searchParams.get('session_id');
        if (!sessionId) return json(response, 400, { error: 'session_id is required' });
        return json(response, 200, await confirmSession(sessionId));
      }
      case 'POST /webhooks': {
        if (!options.webhookSecret) return json(response, 503, { error: 'WEBHOOK_SECRET is not set' });
        const raw = await readBody(request);
        let event;
        try {
          event = service.client.webhooks.verify(raw, request.headers, options.webhookSecret);
        } catch (error) {
          if (error instanceof WebhookVerificationError) return json(response, 400, { error: error.message });
          throw error;
        }
        // verify() saw the header, so it is there; deliveries repeat: deduplicate on it.
        const id = String(request.headers['webhook-id']);
        if (webhooks.some((w) => w.id === id)) return send(response, 204, 'text/plain', ''); // a retry
        const orderId = event.type === 'order.paid' ? event.data.id : null;
        webhooks.push({ id, type: event.type, order_id: orderId });
        options.onWebhook?.(
          `webhook ${event.type} ${id} verified${orderId ? `: order ${orderId} paid, fulfilled` : ''}`,
        );
        if (event.type === 'order.paid' && event.data.id && event.data.order_code) {
          fulfil({ id: event.data.id, code: event.data.order_code }, 'webhook');
        }
        return send(response, 204, 'text/plain', '');
      }
      default:
        return send(response, 404, 'text/plain; charset=utf-8', 'not found');
    }
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      const status = error instanceof TicketingError ? 502 : 500;
      const detail =
        error instanceof TicketingError
          ? { error: error.errorCode, status: error.status, request_id: error.requestId }
          : { error: 'internal' };
      if (!(error instanceof TicketingError)) console.error(error);
      if (!response.headersSent) json(response, status, detail);
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(own.port || 80), own.hostname.replace(/^\[|\]$/g, ''), () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  own.port = String(port);
  return {
    url: own.origin,
    eventId,
    service,
    fulfilments,
    webhooks,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
