// POST /v1/orders/{orderId}/refunds: a partner refunds an order, in full or in part, through the
// same action as the organizer app and the admin API (actions/refund-order.ts). The refund is
// written under the Idempotency-Key as an order is, answered pending, and sent to the provider
// once committed; its outcome comes as order.refunded (or a read of the order).
import type { FastifyReply } from 'fastify';
import { Type, type Static } from 'typebox';
import { guard } from '../auth/index.ts';
import type { AppContext } from '../context.ts';
import {
  Envelope,
  envelope,
  errorResponses,
  idempotencyKeyOf,
  runIdempotent,
  sendIdempotent,
  Timestamp,
  validationError,
  type FieldError,
  type Host,
} from '../platform/index.ts';
import { requestOrderRefund, sendRefund, type RefundOrderOptions } from './actions/refund-order.ts';
import type { RefundRow } from './process-refund.ts';

const REQUESTED_MESSAGE = 'Refund requested';

/** What a refund may be asked with: all optional; nothing at all refunds what is left of the order. */
export const RefundIn = Type.Object(
  {
    amount_minor: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2_000_000_000,
        description:
          "What to give back, minor units, at most what is left to refund. With registration_ids it replaces what those runners' places come to",
      }),
    ),
    registration_ids: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        minItems: 1,
        maxItems: 10,
        uniqueItems: true,
        description:
          "Runners of the order whose places go back (they are cancelled and free to sell again): each gives back its ticket price and the service fee charged on it, less its share of the order's discount",
      }),
    ),
    reason: Type.Optional(
      Type.String({
        maxLength: 600,
        description: 'Why, 1 to 500 characters once trimmed; kept with the refund',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RefundIn = Static<typeof RefundIn>;

export const RefundOut = Type.Object({
  id: Type.String({ examples: ['rfd_2bQm7xK9cT4nV8rW1sLp0aZe'] }),
  order_id: Type.String(),
  status: Type.String({
    description: 'pending until the network confirms it, then succeeded or failed',
    examples: ['pending'],
  }),
  amount_minor: Type.Integer({ description: 'What this refund gives back, minor units' }),
  currency: Type.String({ examples: ['UGX'] }),
  method: Type.String({
    description: 'momo, airtel, mpesa or card: the method that took the payment and returns it',
  }),
  reason: Type.Union([Type.String(), Type.Null()]),
  registration_ids: Type.Array(Type.String(), {
    description: 'The runners whose places this refund returns; [] for an amount alone',
  }),
  created_at: Timestamp,
  refunded_at: Type.Union([Timestamp, Type.Null()], {
    description: 'When the network confirmed it; null until then',
  }),
  provider_reference: Type.Union([Type.String(), Type.Null()], {
    description: "The network's id of the refund once it succeeded, or null",
  }),
});
export type RefundOut = Static<typeof RefundOut>;

export function toRefundOut(refund: RefundRow): RefundOut {
  return {
    id: refund.id,
    order_id: refund.orderId,
    status: refund.status,
    amount_minor: refund.amount,
    currency: refund.currency,
    method: refund.method,
    reason: refund.reason,
    registration_ids: refund.registrationIds,
    created_at: refund.createdAt.toISOString(),
    refunded_at: refund.status === 'succeeded' ? (refund.finalizedAt?.toISOString() ?? null) : null,
    provider_reference: refund.providerReference,
  };
}

/**
 * The action's options from a refund body: the reason trimmed, and 400 validation_failed for one
 * that is blank or longer than 500 characters once trimmed.
 */
export function refundAsked(
  body: RefundIn | undefined,
): Pick<RefundOrderOptions, 'amountMinor' | 'registrationIds' | 'reason'> {
  const reason = body?.reason?.trim();
  const errors: FieldError[] = [];
  if (reason !== undefined && (reason.length === 0 || reason.length > 500)) {
    errors.push({ field: 'reason', message: 'must be 1 to 500 characters once trimmed' });
  }
  if (errors.length > 0) throw validationError(errors);
  return { amountMinor: body?.amount_minor, registrationIds: body?.registration_ids, reason: reason ?? null };
}

/** The description both refund routes share: what each body gives back, and the refusals. */
export const REFUND_DESCRIPTION =
  "Without amount_minor and registration_ids, refunds everything left of the order. With registration_ids, those runners' places go back (ticket price and its service fee, less their share of any discount); the last places take the rest (the donation) with them. With amount_minor, that amount goes back (ticket money first, then the donation, then fees). One refund of an order may be pending at a time (409 conflict); an order not paid is 409 conflict; an amount above what is left, a runner not of the order or refunded already, a free order, or a network that cannot give back a part is 422 refund_not_possible, with nothing changed. The refund is answered pending; order.refunded says when it succeeded, with the order's refunded_total (status refunded once all was given back).";

export async function registerRefundRoutes(app: Host, ctx: AppContext) {
  app.post(
    '/v1/orders/:orderId/refunds',
    {
      ...guard(ctx, { scope: 'orders:write' }),
      schema: {
        tags: ['Orders'],
        summary: 'Refund an order, in full or in part',
        description: `${REFUND_DESCRIPTION} Send an Idempotency-Key header to retry safely.`,
        security: [{ bearer: [] }],
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        params: Type.Object({ orderId: Type.String({ maxLength: 64 }) }),
        body: RefundIn,
        response: {
          201: Envelope(RefundOut, REQUESTED_MESSAGE, 201),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const key = idempotencyKeyOf(request.headers['idempotency-key']);
      const asked = refundAsked(request.body);
      let written: RefundRow | undefined;
      const result = await runIdempotent(
        ctx,
        {
          clientId: auth.clientId,
          key,
          operation: 'POST /v1/orders/{orderId}/refunds',
          body: { order_id: request.params.orderId, ...request.body },
        },
        async (tx) => {
          written = await requestOrderRefund(ctx, tx, {
            organizationId: auth.organizationId,
            orderId: request.params.orderId,
            actor: { memberId: null, label: `API client ${auth.clientId}` },
            ip: request.ip,
            ...asked,
          });
          return { status: 201, body: envelope(201, REQUESTED_MESSAGE, toRefundOut(written)) };
        },
      );
      // Asked once committed; a replay asks nothing (the job follows the refund).
      if (written && !result.replayed) await sendRefund(ctx, written);
      return sendIdempotent(reply as unknown as FastifyReply, result);
    },
  );
}
