// Writing planned orders: their rows, their registrations and what follows from them (the
// order.paid outbox row of a free order, the hold-expiry job of a pending one).
import type { SQL } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { insertRows, jobsInsert, newId, randomString, type Tx } from '../platform/index.ts';
import { outboxInsert } from '../webhooks/index.ts';
import { normalizePhone, phoneCountryOf } from './contact.ts';
import { orderPaidEvents } from './order-lifecycle.ts';
import { toOrderOut, type OrderRow, type RegistrationRow } from './order-out.ts';
import { transition } from './order-state.ts';
import { orders, registrations } from './orders.schema.ts';
import type { OrderPlan } from './plan-order.ts';

export const HOLD_EXPIRY_JOB = 'order.expire_hold';
const ORDER_CODE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';

/** A new order's rows. */
export interface OrderRows {
  order: OrderRow;
  registrations: RegistrationRow[];
}

/** A new order as written, with the writes still on their way (see IdempotentWork.written). */
export interface CreatedOrder extends OrderRows {
  written: Promise<unknown>;
}

/**
 * Writes planned orders, their registrations and what follows from them, waiting on no statement
 * (statements on one connection run in the order sent); their tickets are counted (or taken) by
 * the caller.
 */
export function writeOrders(ctx: AppContext, tx: Tx, plans: OrderPlan[]): CreatedOrder[] {
  const { created, writes } = orderWrites(ctx, plans);
  const written = Promise.all(writes.map((write) => tx.execute(write)));
  written.catch(() => {}); // whoever commits awaits them
  return created.map((c) => ({ ...c, written }));
}

/**
 * Planned orders' rows and the statements that write them, their registrations and what follows
 * from them, in the order they must run. However many orders, the rows of each table go out in
 * one statement of fixed text (a JSON array of rows), prepared once per connection.
 */
export function orderWrites(
  ctx: Pick<AppContext, 'config'>,
  plans: OrderPlan[],
): { created: OrderRows[]; writes: SQL[] } {
  if (plans.length === 0) return { created: [], writes: [] };
  const created = plans.map((plan) => orderRows(ctx, plan));
  // the trace each order was planned in, which its job and event continue (OrderPlan.traceContext)
  const traceOf = new Map(created.map((c, i) => [c, plans[i]!.traceContext]));
  // A free order is written paid, as confirmOrderPaid (order-lifecycle.ts) leaves a paid order:
  // registrations confirmed, and the same order.paid outbox row (test/orders/create-order.test.ts
  // compares a free order with its webhook). A pending order gets its hold-expiry job.
  const paid = created.filter((c) => c.order.status === 'paid');
  const pending = created.filter((c) => c.order.status === 'pending');
  const writes = [
    insertRows(
      orders,
      created.map((c) => orderInsertRow(c.order)),
    ),
    insertRows(
      registrations,
      created.flatMap((c) => c.registrations.map(registrationInsertRow)),
    ),
  ];
  if (paid.length > 0) {
    const data = paid.map((c) => ({
      order: c.order,
      data: toOrderOut(c.order, c.registrations),
      now: c.order.paidAt!,
      traceContext: traceOf.get(c) ?? null,
    }));
    writes.push(outboxInsert(orderPaidEvents(data)));
  }
  if (pending.length > 0) {
    writes.push(
      jobsInsert(
        pending.map((c) => ({
          kind: HOLD_EXPIRY_JOB,
          payload: { order_id: c.order.id },
          runAt: c.order.holdExpiresAt!,
          dedupeKey: `hold:${c.order.id}`,
          traceContext: traceOf.get(c) ?? null,
        })),
      ),
    );
  }
  return { created, writes };
}

/** A planned order's rows, as writeOrders writes them. */
function orderRows(ctx: Pick<AppContext, 'config'>, plan: OrderPlan): OrderRows {
  const { options, found, now, lines, subtotal, lacesFee, donation, total, free } = plan;
  const { input, session } = options;
  const { event } = found;
  const holdExpiresAt = new Date(now.getTime() + ctx.config.holdMinutes * 60_000);
  // what paying a new order makes of it, as the state machine says (paid, no failure)
  const paying = free
    ? transition({ status: 'pending', failureKind: null }, { type: 'payment_confirmed' })
    : null;
  if (paying && !paying.ok) throw new Error(paying.reason);
  const order: OrderRow = {
    id: newId('ord'),
    organizationId: options.organizationId,
    eventId: event.id,
    checkoutSessionId: session?.id ?? null,
    checkoutMode: session?.uiMode ?? null,
    apiClientId: options.apiClientId,
    channel: 'partner_api',
    partnerReference: session ? session.clientReferenceId : (input.client_reference_id ?? null),
    orderCode: randomString(8, ORDER_CODE_ALPHABET),
    status: paying ? paying.next.status : 'pending',
    failureKind: paying ? paying.next.failureKind : null,
    currency: event.currency,
    subtotal,
    discountTotal: 0,
    donationTotal: donation,
    lacesFee,
    total,
    refundedTotal: 0,
    paymentMethod: total > 0 ? (input.payment_method ?? null) : null,
    buyerName: input.buyer.name.trim(),
    buyerEmail: input.buyer.email.trim(),
    // '' for a free registration without a phone (order-rules.ts checkInput)
    buyerPhone: normalizePhone(input.buyer.phone, phoneCountryOf(event.currency)) ?? '',
    waiverVersion: event.waiverRequired ? event.waiverVersion : null,
    waiverAcceptedAt: event.waiverRequired ? now : null,
    holdExpiresAt: free ? null : holdExpiresAt,
    paidAfterExpiry: false,
    // a hold's and a free place's alike: both count toward the hosted page's per-IP limit
    clientIpHash: options.clientIpHash ?? null,
    paidAt: free ? now : null,
    closedAt: null,
    createdAt: now,
    updatedAt: now,
    // a session's order belongs to the session's trace, which the buyer's requests continue
    traceContext: session?.traceContext ?? plan.traceContext,
    locale: options.locale ?? null,
  };
  const regs: RegistrationRow[] = lines.map((l, i) => ({
    id: newId('reg'),
    orderId: order.id,
    organizationId: options.organizationId,
    ticketTypeId: l.tt.id,
    position: i,
    ticketLabel: l.tt.name,
    distanceKm: l.tt.distanceKm,
    priceMinor: l.tt.priceMinor,
    feeMinor: l.fee,
    participantName: l.item.participant_name.trim(),
    dateOfBirth: l.item.date_of_birth ?? null,
    runnerEmail: null,
    runnerPhone: null,
    answers: l.item.answers ?? {},
    status: free ? 'confirmed' : 'pending',
    refundId: null,
    createdAt: now,
  }));
  return { order, registrations: regs };
}

const at = (d: Date | null) => d?.toISOString() ?? null;

/** An order as a row of the orders insert (insertRows' JSON: columns by name, instants as ISO text). */
function orderInsertRow(o: OrderRow) {
  return {
    id: o.id,
    organization_id: o.organizationId,
    event_id: o.eventId,
    checkout_session_id: o.checkoutSessionId,
    checkout_mode: o.checkoutMode,
    api_client_id: o.apiClientId,
    channel: o.channel,
    partner_reference: o.partnerReference,
    order_code: o.orderCode,
    status: o.status,
    failure_kind: o.failureKind,
    currency: o.currency,
    subtotal: o.subtotal,
    discount_total: o.discountTotal,
    donation_total: o.donationTotal,
    laces_fee: o.lacesFee,
    total: o.total,
    payment_method: o.paymentMethod,
    buyer_name: o.buyerName,
    buyer_email: o.buyerEmail,
    buyer_phone: o.buyerPhone,
    waiver_version: o.waiverVersion,
    waiver_accepted_at: at(o.waiverAcceptedAt),
    hold_expires_at: at(o.holdExpiresAt),
    paid_after_expiry: o.paidAfterExpiry,
    client_ip_hash: o.clientIpHash,
    paid_at: at(o.paidAt),
    closed_at: at(o.closedAt),
    created_at: at(o.createdAt),
    updated_at: at(o.updatedAt),
    trace_context: o.traceContext,
    locale: o.locale,
  };
}

/** A registration as a row of the registrations insert. */
function registrationInsertRow(r: RegistrationRow) {
  return {
    id: r.id,
    order_id: r.orderId,
    organization_id: r.organizationId,
    ticket_type_id: r.ticketTypeId,
    position: r.position,
    ticket_label: r.ticketLabel,
    distance_km: r.distanceKm,
    price_minor: r.priceMinor,
    fee_minor: r.feeMinor,
    participant_name: r.participantName,
    date_of_birth: r.dateOfBirth,
    answers: r.answers,
    status: r.status,
    created_at: at(r.createdAt),
  };
}
