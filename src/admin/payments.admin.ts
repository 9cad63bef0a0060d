// Admin routes for payments: the organization's payments that bought nothing and must be refunded
// (a late success with no capacity left, or a second payment for a paid order; the list is how none
// is ever silently dropped), and an order's refund, in full or in part, through the same action as
// the partner API and the organizer app.
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { findOrganization } from '../organizations/index.ts';
import { Envelope, envelope, notFound, Timestamp, type Host } from '../platform/index.ts';
import {
  listPaymentsNeedingRefund,
  REFUND_DESCRIPTION,
  REFUND_LIST_LIMIT,
  refundAsked,
  RefundIn,
  refundOrder,
  RefundOut,
  toRefundOut,
  type PaymentNeedingRefund,
} from '../payments/index.ts';
import { operatorOf } from './admin-audit.ts';
import { assertId, errorResponses, IdParams } from './admin-schemas.ts';

const RefundDueOut = Type.Object({
  reason: Type.Enum(['paid_after_expiry', 'duplicate_payment'], {
    description:
      'paid_after_expiry: confirmed after the order stopped holding its tickets, with no capacity left; duplicate_payment: a second payment for an order already paid',
  }),
  order_id: Type.String(),
  order_code: Type.String(),
  order_status: Type.String(),
  event_id: Type.String(),
  amount_minor: Type.Integer({ description: 'what the buyer paid, to be refunded' }),
  currency: Type.String(),
  payment_method: Type.String({ description: 'the method that took it: momo, airtel or mpesa' }),
  payer_phone: Type.String({
    description: 'the number that paid, with its country code: 256XXXXXXXXX, 254XXXXXXXXX',
  }),
  payment_reference: Type.String({ description: 'our reference with the provider (UUID)' }),
  provider_transaction_id: Type.Union([Type.String(), Type.Null()]),
  confirmed_at: Timestamp,
  buyer: Type.Object({ name: Type.String(), email: Type.String(), phone: Type.String() }),
});

const RefundsDueOut = Type.Object({
  payments: Type.Array(RefundDueOut),
  has_more: Type.Boolean({
    description: `true when more than ${REFUND_LIST_LIMIT} are due; the longest-waiting come first`,
  }),
});

function toRefundDueOut({ reason, attempt, order }: PaymentNeedingRefund) {
  return {
    reason,
    order_id: order.id,
    order_code: order.orderCode,
    order_status: order.status,
    event_id: order.eventId,
    amount_minor: attempt.amount,
    currency: attempt.currency,
    payment_method: attempt.method,
    payer_phone: attempt.msisdn,
    payment_reference: attempt.reference,
    provider_transaction_id: attempt.providerTransactionId,
    confirmed_at: (attempt.finalizedAt ?? attempt.createdAt).toISOString(),
    buyer: { name: order.buyerName, email: order.buyerEmail, phone: order.buyerPhone },
  };
}

export async function registerPaymentAdminRoutes(admin: Host, ctx: AppContext) {
  const db = ctx.database.db;

  admin.get(
    '/organizations/:id/payments/needs-refund',
    {
      schema: {
        params: IdParams,
        response: {
          200: Envelope(RefundsDueOut, 'Payments needing a refund retrieved'),
          ...errorResponses(401, 404),
        },
      },
    },
    async (request) => {
      assertId(request.params.id, 'org', 'organization');
      const organization = await findOrganization(db, request.params.id);
      if (!organization) throw notFound('organization');
      const { payments, hasMore } = await listPaymentsNeedingRefund(db, organization.id);
      return envelope(200, 'Payments needing a refund retrieved', {
        payments: payments.map(toRefundDueOut),
        has_more: hasMore,
      });
    },
  );

  admin.post(
    '/organizations/:id/orders/:orderId/refunds',
    {
      schema: {
        description: REFUND_DESCRIPTION,
        params: Type.Object({ id: Type.String(), orderId: Type.String() }),
        body: RefundIn,
        response: {
          201: Envelope(RefundOut, 'Refund requested', 201),
          ...errorResponses(400, 401, 404, 409, 422),
        },
      },
    },
    async (request, reply) => {
      assertId(request.params.id, 'org', 'organization');
      assertId(request.params.orderId, 'ord', 'order');
      const organization = await findOrganization(db, request.params.id);
      if (!organization) throw notFound('organization');
      const refund = await refundOrder(ctx, {
        organizationId: organization.id,
        orderId: request.params.orderId,
        actor: operatorOf(request),
        ip: request.ip,
        ...refundAsked(request.body),
      });
      return reply.code(201).send(envelope(201, 'Refund requested', toRefundOut(refund)));
    },
  );
}
