// Helpers for webhook tests: receivers on loopback that record what they get, verification with the
// independent standardwebhooks package, and small factories and pumps over the service.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { reconcileAttempt } from '../../src/payments/collect.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import type { PaymentMethod } from '../../src/payments/provider.ts';
import { testPhoneNumber } from '../../src/payments/simulator/scenarios.ts';
import type { Simulator } from '../../src/payments/simulator/simulator.ts';
import { admin, dataOf } from '../admin/admin-helpers.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  resolveNoNames,
  startHarness,
  type Harness,
  type HarnessOptions,
  type TestPartner,
} from '../helpers/harness.ts';

/**
 * A service for webhook tests: private URLs allowed (receivers are on 127.0.0.1), the retry
 * schedule ten thousand times faster (5 s -> 0.5 ms, 5 min -> 30 ms, 30 min -> 180 ms), and a short
 * delivery deadline.
 */
export async function startWebhookHarness(env: Record<string, string> = {}, options: HarnessOptions = {}) {
  return startHarness({
    ...options,
    env: {
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIME_SCALE: '0.0001',
      WEBHOOK_TIMEOUT_MS: '2000',
      ...env,
    },
    // No test asks real DNS: a host name resolves only where a test gives its own stub.
    service: { webhookResolver: resolveNoNames, ...options.service },
  });
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Reply {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** never answer (the connection is closed when the receiver closes) */
  hang?: boolean;
  /** answer after this many ms */
  delayMs?: number;
}

/**
 * A webhook receiver on 127.0.0.1 (port 0). `respond` decides each answer from the request and
 * how many requests with the same webhook-id came before it (0 for the first).
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private server: Server | null = null;
  private readonly hanging = new Set<ServerResponse>();
  respond: (request: ReceivedRequest, previousWithSameId: number) => Reply = () => ({ status: 204 });

  constructor(respond?: (request: ReceivedRequest, previousWithSameId: number) => Reply) {
    if (respond) this.respond = respond;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request: ReceivedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        const id = request.headers['webhook-id'];
        const before = this.requests.filter((r) => r.headers['webhook-id'] === id).length;
        this.requests.push(request);
        const reply = this.respond(request, before);
        if (reply.hang) {
          this.hanging.add(res);
          return;
        }
        const answer = () => {
          res.writeHead(reply.status ?? 204, reply.headers ?? {});
          res.end(reply.body ?? '');
        };
        if (reply.delayMs) setTimeout(answer, reply.delayMs);
        else answer();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  /** Requests carrying this webhook-id, in arrival order. */
  withId(id: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.headers['webhook-id'] === id);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

export async function startReceiver(respond?: (request: ReceivedRequest, previous: number) => Reply) {
  return new Receiver(respond).start();
}

export interface WebhookPayload {
  type: string;
  timestamp: string;
  data: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * Verifies a received request with the standardwebhooks package and returns the parsed payload.
 * `now` is the service clock's time when a test has moved it: the package checks the timestamp
 * against Date.now() (5 minutes either way), so Date.now is set to it for the synchronous call.
 */
export function verifyDelivery(secret: string, request: ReceivedRequest, now?: Date): WebhookPayload {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  const realNow = Date.now;
  if (now) Date.now = () => now.getTime();
  try {
    return new Webhook(secret).verify(request.body, headers) as WebhookPayload;
  } finally {
    Date.now = realNow;
  }
}

/** Runs due jobs until `done()` holds; fails after `timeoutMs`. */
export async function pump(h: Harness, done: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await h.service.jobs.runDue();
    if (await done()) return;
    if (Date.now() > deadline) assert.fail('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs due jobs for a while, for tests that check nothing more happens. */
export async function pumpFor(h: Harness, ms: number) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    await h.service.jobs.runDue();
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function createEndpoint(
  h: Harness,
  organizationId: string,
  url: string,
  events?: string[],
): Promise<{ id: string; secret: string }> {
  const res = await admin(h, {
    method: 'POST',
    url: `/organizations/${organizationId}/webhook-endpoints`,
    body: { url, ...(events && { events }) },
  });
  const data = dataOf(res, 201);
  return { id: data.id, secret: data.secret };
}

export async function getEndpoint(h: Harness, id: string) {
  return dataOf(await admin(h, { url: `/webhook-endpoints/${id}` }), 200);
}

export async function deliveriesOf(h: Harness, endpointId: string) {
  return dataOf(await admin(h, { url: `/webhook-endpoints/${endpointId}/deliveries?limit=50` }), 200)
    .deliveries as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export async function sendTestEvent(h: Harness, endpointId: string) {
  return dataOf(await admin(h, { method: 'POST', url: `/webhook-endpoints/${endpointId}/test` }), 202);
}

export interface Shop {
  partner: TestPartner;
  token: string;
  eventId: string;
  paidTicket: string;
  freeTicket: string;
}

/** An organization with an open event (a paid and a free ticket type) and a token with every scope. */
export async function makeShop(h: Harness): Promise<Shop> {
  const partner = await makePartner(h);
  const event = await makeEvent(h, partner, {
    ticket_types: [
      { name: '10 km', price_minor: 30000, capacity: 500, distance_km: 10 },
      { name: 'Free 5 km', price_minor: 0, capacity: 500, distance_km: 5 },
    ],
  });
  const rows = await h.service.ctx.database.db
    .select()
    .from(ticketTypes)
    .where(eq(ticketTypes.eventId, event.id));
  return {
    partner,
    token: await getToken(h, partner),
    eventId: event.id,
    paidTicket: rows.find((r) => r.priceMinor > 0)!.id,
    freeTicket: rows.find((r) => r.priceMinor === 0)!.id,
  };
}

/** Creates an order through the partner API; a free one is paid at once. */
export async function createOrder(h: Harness, shop: Shop, ticketTypeId: string) {
  const res = await h.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: bearer(shop.token),
    payload: {
      event_id: shop.eventId,
      items: [{ ticket_type_id: ticketTypeId, participant_name: 'Ann' }],
      buyer: { name: 'Ann', email: 'ann@example.org', phone: '0772123456' },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; status: string };
}

export async function readOrder(h: Harness, shop: Shop, orderId: string) {
  const res = await h.service.api.inject({ url: `/v1/orders/${orderId}`, headers: bearer(shop.token) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as Record<string, unknown> & { id: string; status: string };
}

/** A free order, paid at once; its order.paid event is in the outbox. */
export async function payFreeOrder(h: Harness, shop: Shop) {
  const order = await createOrder(h, shop, shop.freeTicket);
  assert.equal(order.status, 'paid');
  return order;
}

/**
 * A paid order of one ticket of `shop`, paid from the simulator's test number `code` on `method`:
 * the prompt is sent, approved on `sim` and settled by reconciling it (the harness runs no jobs).
 */
export async function payThroughSimulator(
  h: Harness,
  sim: Simulator,
  shop: Shop,
  method: PaymentMethod,
  code = '01',
): Promise<{ orderId: string; reference: string }> {
  const order = await createOrder(h, shop, shop.paidTicket);
  const res = await h.service.api.inject({
    method: 'POST',
    url: `/v1/orders/${order.id}/pay`,
    headers: bearer(shop.token),
    payload: { payment_method: method, phone: testPhoneNumber(method, code) },
  });
  assert.equal(res.statusCode, 202, res.body);
  await Promise.allSettled([...h.service.ctx.gateway.inflight]);
  const db = h.service.ctx.database.db;
  const [attempt] = await db.select().from(paymentAttempts).where(eq(paymentAttempts.orderId, order.id));
  sim.approve(attempt!.reference);
  assert.equal(await reconcileAttempt(h.service.ctx, attempt!.reference), null);
  assert.equal((await readOrder(h, shop, order.id)).status, 'paid');
  return { orderId: order.id, reference: attempt!.reference };
}
