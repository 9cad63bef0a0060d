// The Order wire shape (docs/contract.md#order) and loading orders with their registrations. The schema
// is the routes' validation and serialization, their OpenAPI entry and, through Static, the type.
import { asc, inArray } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import { Timestamp, type Executor } from '../platform/index.ts';
import { FAILURE_KINDS } from './order-state.ts';
import { orders, registrations } from './orders.schema.ts';

export type OrderRow = typeof orders.$inferSelect;
export type RegistrationRow = typeof registrations.$inferSelect;

const RegistrationOut = Type.Object({
  id: Type.String(),
  ticket_type_id: Type.String(),
  distance_km: Type.Number(),
  ticket_label: Type.String(),
  participant_name: Type.String(),
  status: Type.String({
    description:
      'pending until the order is paid, then confirmed; cancelled when the unpaid order expires or is cancelled, or when a refund returned this place (the whole order or this runner)',
    examples: ['confirmed'],
  }),
});
type RegistrationOut = Static<typeof RegistrationOut>;

export const OrderOut = Type.Object({
  id: Type.String({ examples: ['ord_7hYt2LmQ9xWc4RbN1sKp3VzA'] }),
  order_code: Type.String({ examples: ['K7M2Q9XP'] }),
  event_id: Type.String(),
  status: Type.String({ description: 'pending, paid, expired, cancelled or refunded', examples: ['paid'] }),
  currency: Type.String({ examples: ['UGX'] }),
  subtotal: Type.Integer({ description: 'Ticket prices, minor units' }),
  discount_total: Type.Integer(),
  donation_total: Type.Integer(),
  laces_fee: Type.Integer({ description: 'Service fee for the payment method chosen (momo until one is)' }),
  total: Type.Integer({ description: 'What the buyer pays, minor units; 0 for a free order, paid at once' }),
  payment_method: Type.Union([Type.String(), Type.Null()], {
    description:
      "The method the order was paid with, or is priced for while pending (one of the event's payment_methods: momo, airtel, mpesa); null for a free order and before a method is chosen",
    examples: ['momo'],
  }),
  refunded_total: Type.Integer({
    description:
      'What succeeded refunds gave back, minor units; 0 when none. A partly refunded order stays paid; it is refunded once this reaches total',
  }),
  failure_kind: Type.Union([Type.String(), Type.Null()], {
    description: `Why the order did not complete, or null: ${FAILURE_KINDS.join(', ')}`,
  }),
  ticket_count: Type.Integer(),
  buyer: Type.Object(
    { name: Type.String(), email: Type.String(), phone: Type.String() },
    {
      description:
        "Each is the text [erased] once the buyer's personal data was erased (on request, or some time after the event); so is each participant_name",
    },
  ),
  attribution: Type.Object({
    channel: Type.String({ examples: ['partner_api'] }),
    api_client_id: Type.String({
      description: 'The API client whose request or checkout session created the order',
    }),
    checkout_session_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The checkout session it was placed in; null for POST /v1/orders',
    }),
    partner_reference: Type.String({
      description: "client_reference_id of the order or of its checkout session; '' when none was given",
    }),
  }),
  hold_expires_at: Type.Union([Timestamp, Type.Null()], {
    description: 'While pending: when the held tickets are released unless it is paid. Otherwise null.',
  }),
  created_at: Timestamp,
  registrations: Type.Array(RegistrationOut),
});
export type OrderOut = Static<typeof OrderOut>;

export function toOrderOut(order: OrderRow, regs: RegistrationRow[]): OrderOut {
  return {
    id: order.id,
    order_code: order.orderCode,
    event_id: order.eventId,
    status: order.status,
    currency: order.currency,
    subtotal: order.subtotal,
    discount_total: order.discountTotal,
    donation_total: order.donationTotal,
    laces_fee: order.lacesFee,
    total: order.total,
    payment_method: order.total > 0 ? order.paymentMethod : null,
    refunded_total: order.refundedTotal,
    failure_kind: order.failureKind,
    ticket_count: regs.length,
    buyer: { name: order.buyerName, email: order.buyerEmail, phone: order.buyerPhone },
    attribution: {
      channel: order.channel,
      api_client_id: order.apiClientId ?? '',
      checkout_session_id: order.checkoutSessionId,
      partner_reference: order.partnerReference ?? '',
    },
    hold_expires_at: order.status === 'pending' ? (order.holdExpiresAt?.toISOString() ?? null) : null,
    created_at: order.createdAt.toISOString(),
    registrations: regs.map((r) => ({
      id: r.id,
      ticket_type_id: r.ticketTypeId,
      distance_km: r.distanceKm,
      ticket_label: r.ticketLabel,
      participant_name: r.participantName,
      status: r.status,
    })),
  };
}

/** Registrations of several orders in one query, grouped by order id in position order. */
export async function registrationsOf(
  db: Executor,
  orderIds: string[],
): Promise<Map<string, RegistrationRow[]>> {
  const byOrder = new Map<string, RegistrationRow[]>(orderIds.map((id) => [id, []]));
  if (orderIds.length === 0) return byOrder;
  const rows = await db
    .select()
    .from(registrations)
    .where(inArray(registrations.orderId, orderIds))
    .orderBy(asc(registrations.orderId), asc(registrations.position));
  for (const row of rows) byOrder.get(row.orderId)?.push(row);
  return byOrder;
}

export async function loadOrderOut(db: Executor, order: OrderRow): Promise<OrderOut> {
  const regs = await registrationsOf(db, [order.id]);
  return toOrderOut(order, regs.get(order.id) ?? []);
}
