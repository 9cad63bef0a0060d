// The Order wire shape (SPEC.md section 2) and loading orders with their registrations.
import { asc, inArray } from 'drizzle-orm';
import type { Executor } from '../platform/db.ts';
import { orders, registrations } from './orders.schema.ts';

export type OrderRow = typeof orders.$inferSelect;
export type RegistrationRow = typeof registrations.$inferSelect;

export interface RegistrationOut {
  id: string;
  ticket_type_id: string;
  distance_km: number;
  ticket_label: string;
  participant_name: string;
  status: string;
}

export interface OrderOut {
  id: string;
  order_code: string;
  event_id: string;
  status: string;
  currency: string;
  subtotal: number;
  discount_total: number;
  donation_total: number;
  laces_fee: number;
  total: number;
  failure_kind: string | null;
  ticket_count: number;
  buyer: { name: string; email: string; phone: string };
  attribution: {
    channel: string;
    api_client_id: string;
    checkout_session_id: string | null;
    partner_reference: string;
  };
  hold_expires_at: string | null;
  created_at: string;
  registrations: RegistrationOut[];
}

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
