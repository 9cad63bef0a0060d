// POST /v1/orders/{orderId}/pay (headless checkout), POST /v1/orders/{orderId}/refunds
// (refunds.routes.ts) and the providers' callback endpoints.
import { Type } from 'typebox';
import { guard } from '../auth/index.ts';
import type { AppContext } from '../context.ts';
import { loadOrderOut, OrderOut } from '../orders/index.ts';
import {
  ApiError,
  enforceRateLimit,
  Envelope,
  envelope,
  errorResponses,
  type Host,
} from '../platform/index.ts';
import { noteCallback } from './note-callback.ts';
import { methodOf } from './payment-gateway.ts';
import { noteRefundResult } from './refunds-callback.ts';
import { registerRefundRoutes } from './refunds.routes.ts';
import { startPayment } from './start-payment.ts';

const PAY_MESSAGE = 'Payment requested: the buyer approves the prompt on their phone';

/** The Order as this route answers it: pending while the prompt is out (a paid order is a 409). */
const PendingOrderOut = Type.Object({
  ...OrderOut.properties,
  status: Type.String({ ...OrderOut.properties.status, examples: ['pending'] }),
});

export async function registerPaymentRoutes(app: Host, ctx: AppContext) {
  const methods = ctx.gateway.methods;
  // "momo: MTN 076, 077, 078, 079 (UGX); airtel: Airtel 070, 074, 075 (UGX); mpesa: ..."
  const networks = methods
    .filter((m) => m.prefixes.length > 0)
    .map(
      (m) =>
        `${m.key}: ${m.labels.en.network} ${m.prefixes.map((p) => `0${p}`).join(', ')} (${m.currencies.join(', ')})`,
    )
    .join('; ');
  app.post(
    '/v1/orders/:orderId/pay',
    {
      ...guard(ctx, { scope: 'orders:write' }),
      schema: {
        tags: ['Orders'],
        summary: 'Pay a pending order by mobile money',
        description:
          "Sends a payment prompt to the phone and answers 202 with the order while the prompt is out. Calling again while a prompt is outstanding sends no second prompt. Confirm the outcome by reading the order (status paid) or with the order.paid webhook. A card is typed on the card provider's page, which only the hosted checkout sends a buyer to: card here is 400 validation_failed.",
        security: [{ bearer: [] }],
        params: Type.Object({ orderId: Type.String() }),
        body: Type.Object(
          {
            payment_method: Type.Union(methods.map((m) => Type.Literal(m.key))),
            phone: Type.String({
              maxLength: 32,
              examples: ['0772123456'],
              description: `The number the prompt goes to: a mobile money number of the payment method's network and country (${networks}), written 07…, 7… (01… in Kenya), with its country code (256…, 254…), + or 00 before it; spaces and dashes ignored. Landlines, other networks and a method the order's currency does not take are 400 validation_failed.`,
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          202: Envelope(PendingOrderOut, PAY_MESSAGE, 202),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429),
        },
      },
    },
    async (request, reply) => {
      if (methodOf(ctx.gateway, request.body.payment_method).hostedPage) {
        const message = `${request.body.payment_method} is paid on the provider's page: send the buyer to a checkout session's hosted page.`;
        throw new ApiError('validation_failed', message, {
          errors: [{ field: 'payment_method', message: 'must be a mobile money method here' }],
        });
      }
      const order = await startPayment(ctx, {
        organizationId: request.auth!.organizationId,
        orderId: request.params.orderId,
        method: request.body.payment_method,
        phone: request.body.phone,
      });
      return reply.code(202).send(envelope(202, PAY_MESSAGE, await loadOrderOut(ctx.database.db, order)));
    },
  );

  await registerRefundRoutes(app, ctx);

  // Providers call back with POST (Airtel) or PUT (MTN); our reference is in the path. A callback
  // is unauthenticated: it is limited per client IP before its body is read, it may only make a
  // status query come sooner (noteCallback), and every reference, known or not, gets the same 200.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
    scope.addHook('onRequest', (request, reply) =>
      enforceRateLimit(ctx.limiter, reply, {
        name: 'callback',
        key: `callback:${request.ip}`,
        setting: ctx.config.rateLimits.callback,
      }),
    );
    for (const method of ['POST', 'PUT'] as const) {
      scope.route({
        method,
        url: '/v1/payment-callbacks/:method/:reference',
        schema: {
          hide: true,
          params: Type.Object({ method: Type.String(), reference: Type.String({ maxLength: 64 }) }),
        },
        handler: async (request) => {
          const { method: provider, reference } = request.params as { method: string; reference: string };
          // What the body names is a hint too (noteCallback checks it against the confirmed payment).
          const method = ctx.gateway.methods.find((m) => m.key === provider);
          if (method) noteCallback(ctx, provider, reference, method.parseCallback(jsonOf(request.body)));
          return envelope(200, 'Callback received', { received: true });
        },
      });
    }
    // A provider whose notices come to one address for all payments (Flutterwave's webhook): the
    // adapter reads the reference only from a notice that proves itself (readWebhook).
    scope.post(
      '/v1/payment-callbacks/:method',
      { schema: { hide: true, params: Type.Object({ method: Type.String({ maxLength: 32 }) }) } },
      async (request) => {
        const { method } = request.params as { method: string };
        const provider = Object.hasOwn(ctx.gateway.providers, method)
          ? ctx.gateway.providers[method]
          : undefined;
        const headers = request.headers as Record<string, string | undefined>;
        const reference = provider?.readWebhook?.(headers, jsonOf(request.body));
        if (reference) noteCallback(ctx, method, reference);
        return envelope(200, 'Callback received', { received: true });
      },
    );
    // A provider POSTs a refund's result here when it cannot be asked for it (Daraja's ResultURL and
    // QueueTimeOutURL): our refund's reference is in the path, and the body counts only when its
    // ids are the refund's (refunds-callback.ts).
    scope.post(
      '/v1/payment-callbacks/:method/refunds/:reference/:kind',
      {
        schema: {
          hide: true,
          params: Type.Object({
            method: Type.String({ maxLength: 32 }),
            reference: Type.String({ maxLength: 64 }),
            kind: Type.String({ maxLength: 16 }),
          }),
        },
      },
      async (request) => {
        const { method, reference, kind } = request.params as {
          method: string;
          reference: string;
          kind: string;
        };
        noteRefundResult(ctx, method, reference, kind, jsonOf(request.body));
        return envelope(200, 'Callback received', { received: true });
      },
    );
  });
}

/** A callback's raw body as JSON, or null when it is none. */
function jsonOf(body: unknown): unknown {
  if (typeof body !== 'string' || body === '') return null;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return null;
  }
}
