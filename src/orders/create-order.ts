// Creating an order: the one domain function behind POST /v1/orders and the hosted checkout page.
// Validates everything, holds the tickets, and pays free orders at once, in the caller's transaction.
import { and, eq, inArray } from 'drizzle-orm';
import { paymentAttempts } from '../payments/payments.schema.ts';
import { checkoutSessions } from '../checkout/checkout.schema.ts';
import { sessionStatus, type CheckoutSessionRow } from '../checkout/sessions.ts';
import type { AppContext } from '../context.ts';
import type { AdditionalQuestion } from '../events/events.schema.ts';
import { isRegistrationOpen, type EventWithTickets, type TicketTypeRow } from '../events/events.ts';
import { feeFor, PAYMENT_METHODS, type PaymentMethod } from '../events/fees.ts';
import { insertRows, type Tx } from '../platform/db.ts';
import { ApiError, notFound, validationError, type FieldError } from '../platform/errors.ts';
import { newId, randomString } from '../platform/ids.ts';
import { enqueueJobs } from '../platform/jobs.ts';
import { isEmail, normalizePhone } from './contact.ts';
import {
  countTickets,
  holdTickets,
  isCapacityRefusal,
  quantitiesOf,
  takePaidIfAvailable,
  type Quantities,
} from './inventory.ts';
import { cancelPendingOrder, expireLapsedHolds, recordOrdersPaid } from './order-lifecycle.ts';
import { transition } from './order-state.ts';
import { toOrderOut, type OrderRow, type RegistrationRow } from './order-out.ts';
import { orders, registrations } from './orders.schema.ts';
import { LONE_SURROGATE } from '../platform/http.ts';

export const MAX_TICKETS_PER_ORDER = 10;
export const MAX_DONATION_MINOR = 100_000_000;
/**
 * The highest order total, in minor units, under any payment method (docs/decisions.md "Amount
 * ceilings"): far inside PostgreSQL's integer, whatever method the buyer then pays with.
 */
export const MAX_ORDER_TOTAL_MINOR = 1_000_000_000;
export const HOLD_EXPIRY_JOB = 'order.expire_hold';
const ORDER_CODE_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';

export interface OrderItemInput {
  ticket_type_id: string;
  participant_name: string;
  answers?: Record<string, string>;
  date_of_birth?: string;
}

export interface CreateOrderInput {
  event_id: string;
  items: OrderItemInput[];
  buyer: { name: string; email: string; phone: string };
  waiver_accepted?: boolean;
  donation_minor?: number;
  client_reference_id?: string;
  /** the method whose fee applies; momo when not chosen yet */
  payment_method?: PaymentMethod;
}

export interface CreateOrderOptions {
  organizationId: string;
  apiClientId: string;
  /** the hosted checkout's session; null for headless orders */
  session: CheckoutSessionRow | null;
  input: CreateOrderInput;
  /**
   * The order's event as findEventOnSale reads it for this organization (the session's event, or
   * input.event_id), looked up by the caller before its transaction; undefined when not on sale.
   */
  found: EventWithTickets | undefined;
  /** take the tickets before writing the order (set by runOrderTransaction when it runs again) */
  takeFirst?: boolean;
  /** the hosted checkout page's keyed hash of the buyer's IP, for its hold limit (hold-limits.ts) */
  clientIpHash?: string | null;
}

/**
 * Runs a transaction that creates an order (`run` passes `takeFirst` on to createOrder): once as
 * createOrder prefers, and once more, taking the tickets first, when the capacity CHECK refused
 * the tickets it counted last (other buyers took the room after the event was read). The second
 * run ends in an order or in sold_out, never in that refusal.
 */
export async function runOrderTransaction<T>(run: (takeFirst: boolean) => Promise<T>): Promise<T> {
  try {
    return await run(false);
  } catch (error) {
    if (!isCapacityRefusal(error)) throw error;
    return run(true);
  }
}

/** Age in whole years on `on` (YYYY-MM-DD strings compare as dates). */
export function ageOn(dateOfBirth: string, on: string): number {
  const [by, bm, bd] = dateOfBirth.split('-').map(Number) as [number, number, number];
  const [oy, om, od] = on.split('-').map(Number) as [number, number, number];
  return oy - by - (om < bm || (om === bm && od < bd) ? 1 : 0);
}

/** One formatter per time zone: building an Intl.DateTimeFormat costs far more than using one. */
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date of an instant in a time zone, as YYYY-MM-DD. */
export function localDate(instant: Date, timeZone: string): string {
  let format = dateFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    dateFormats.set(timeZone, format);
  }
  return format.format(instant);
}

/** The earliest date_of_birth taken: nobody older runs, and PostgreSQL has no year 0000. */
const MIN_DATE_OF_BIRTH = '1900-01-01';

/**
 * Strings PostgreSQL cannot store (a NUL byte fails the query: a 500) or would silently alter (a
 * lone surrogate becomes U+FFFD), as field errors; checked before any query.
 */
function unstorableText(value: unknown, path: string, errors: FieldError[]): FieldError[] {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) errors.push({ field: path, message: 'must not contain NUL' });
    else if (LONE_SURROGATE.test(value)) errors.push({ field: path, message: 'must be valid Unicode text' });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => unstorableText(item, `${path}[${i}]`, errors));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value))
      unstorableText(item, path ? `${path}.${key}` : key, errors);
  }
  return errors;
}

function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(value);
}

function checkAnswers(
  errors: FieldError[],
  path: string,
  questions: AdditionalQuestion[],
  answers: Record<string, string>,
) {
  const known = new Set(questions.map((q) => q.key));
  for (const key of Object.keys(answers)) {
    if (!known.has(key)) errors.push({ field: `${path}.${key}`, message: 'is not a question of this event' });
  }
  for (const q of questions) {
    const value = answers[q.key];
    if (value === undefined || value.trim() === '') {
      if (q.required) errors.push({ field: `${path}.${q.key}`, message: `is required (${q.label})` });
      continue;
    }
    if (value.length > 500)
      errors.push({ field: `${path}.${q.key}`, message: 'must be at most 500 characters' });
    if (q.type === 'select' && !q.options.includes(value)) {
      errors.push({ field: `${path}.${q.key}`, message: `must be one of: ${q.options.join(', ')}` });
    }
  }
}

/** Every input rule that needs the event but not inventory; all problems at once. */
function checkInput(found: EventWithTickets, input: CreateOrderInput, now: Date): Map<number, TicketTypeRow> {
  const errors: FieldError[] = [];
  const { event } = found;
  const byId = new Map(found.ticketTypes.map((tt) => [tt.id, tt]));
  const chosen = new Map<number, TicketTypeRow>();
  if (input.items.length === 0) errors.push({ field: 'items', message: 'must contain at least one ticket' });
  if (input.items.length > MAX_TICKETS_PER_ORDER) {
    errors.push({ field: 'items', message: `must contain at most ${MAX_TICKETS_PER_ORDER} tickets` });
  }
  const raceDay = localDate(event.startsAt, event.timezone);
  const today = localDate(now, event.timezone);
  input.items.forEach((item, i) => {
    const path = `items[${i}]`;
    const tt = byId.get(item.ticket_type_id);
    if (!tt) errors.push({ field: `${path}.ticket_type_id`, message: 'is not a ticket type of this event' });
    else chosen.set(i, tt);
    if (item.participant_name.trim() === '')
      errors.push({ field: `${path}.participant_name`, message: 'is required' });
    checkAnswers(errors, `${path}.answers`, event.additionalQuestions, item.answers ?? {});
    if (item.date_of_birth !== undefined) {
      const dob = item.date_of_birth;
      if (!isCalendarDate(dob) || dob < MIN_DATE_OF_BIRTH || dob > today) {
        errors.push({
          field: `${path}.date_of_birth`,
          message: `must be a date from ${MIN_DATE_OF_BIRTH} to today as YYYY-MM-DD`,
        });
      } else if (tt && tt.minAge > 0 && ageOn(item.date_of_birth, raceDay) < tt.minAge) {
        errors.push({
          field: `${path}.date_of_birth`,
          message: `the participant must be at least ${tt.minAge} on race day for ${tt.name}`,
        });
      }
    } else if (tt && tt.minAge > 0) {
      errors.push({
        field: `${path}.date_of_birth`,
        message: `is required: ${tt.name} has a minimum age of ${tt.minAge}`,
      });
    }
  });
  if (input.buyer.name.trim() === '') errors.push({ field: 'buyer.name', message: 'is required' });
  if (!isEmail(input.buyer.email))
    errors.push({ field: 'buyer.email', message: 'must be an e-mail address' });
  if (normalizePhone(input.buyer.phone) === null) {
    errors.push({ field: 'buyer.phone', message: 'must be a Ugandan mobile number such as 0772 123456' });
  }
  if (event.waiverRequired && input.waiver_accepted !== true) {
    errors.push({
      field: 'waiver_accepted',
      message: `the waiver (version ${event.waiverVersion}) must be accepted`,
    });
  }
  const donation = input.donation_minor ?? 0;
  if (!Number.isInteger(donation) || donation < 0 || donation > MAX_DONATION_MINOR) {
    errors.push({
      field: 'donation_minor',
      message: `must be a whole number from 0 to ${MAX_DONATION_MINOR}`,
    });
  }
  if (input.client_reference_id !== undefined && input.client_reference_id.length > 256) {
    errors.push({ field: 'client_reference_id', message: 'must be at most 256 characters' });
  }
  if (errors.length > 0) throw validationError(errors);
  return chosen;
}

/** Locks the session and settles its previous attempt: at most one pending order per session. */
async function prepareSession(tx: Tx, session: CheckoutSessionRow, now: Date): Promise<void> {
  const [locked] = await tx
    .select()
    .from(checkoutSessions)
    .where(eq(checkoutSessions.id, session.id))
    // NO KEY: payment attempts and orders reference the session's neighbours by foreign key, and a
    // plain FOR UPDATE would deadlock against them.
    .for('no key update');
  const status = sessionStatus(locked!, now);
  if (status === 'complete') throw new ApiError('conflict', 'This checkout session is already complete.');
  if (status === 'expired') throw new ApiError('conflict', 'This checkout session has expired.');
  const pending = await tx
    .select({ id: orders.id })
    .from(orders)
    .where(and(eq(orders.checkoutSessionId, session.id), eq(orders.status, 'pending')))
    .for('update');
  for (const { id } of pending) {
    // Never cancel an order whose payment prompt is still on the buyer's phone: an approval would
    // then pay for a cancelled order.
    const [prompt] = await tx
      .select({ id: paymentAttempts.id })
      .from(paymentAttempts)
      .where(and(eq(paymentAttempts.orderId, id), inArray(paymentAttempts.status, ['submitting', 'pending'])))
      .limit(1);
    if (prompt) {
      throw new ApiError('conflict', 'A payment for this checkout is waiting for approval on the phone.');
    }
    await cancelPendingOrder(tx, id, now);
  }
}

/** A new order as written, with the writes still on their way (see IdempotentWork.written). */
export interface CreatedOrder {
  order: OrderRow;
  registrations: RegistrationRow[];
  written: Promise<unknown>;
}

/** An order checked against its event and priced, ready to be written (planOrder). */
export interface OrderPlan {
  options: CreateOrderOptions;
  found: EventWithTickets;
  now: Date;
  lines: Array<{ item: OrderItemInput; tt: TicketTypeRow; fee: number }>;
  subtotal: number;
  lacesFee: number;
  donation: number;
  total: number;
  free: boolean;
  /** tickets per ticket type, in id order */
  quantities: Quantities;
  /**
   * The event as read showed room for every ticket: they are counted after the order is written,
   * unconditionally (see createPlannedOrder).
   */
  countLast: boolean;
}

/** Every check that needs no statement, in the order the API reports them; throws the first. */
export function planOrder(ctx: AppContext, options: CreateOrderOptions): OrderPlan {
  const { input, session } = options;
  const unstorable = unstorableText(input, '', []);
  if (unstorable.length > 0) throw validationError(unstorable);
  const now = ctx.clock.now();
  const { found } = options;
  if (!found || found.event.id !== (session ? session.eventId : input.event_id)) throw notFound('event');
  const chosen = checkInput(found, input, now);
  const { event, organization } = found;
  if (!isRegistrationOpen(event, now))
    throw new ApiError('sale_closed', 'Registration for this event is not open.');
  for (const tt of new Set(chosen.values())) {
    if (now.getTime() < tt.salesStart.getTime() || now.getTime() >= tt.salesEnd.getTime()) {
      throw new ApiError('sale_closed', `Sales for ${tt.name} are not open.`);
    }
  }
  const method: PaymentMethod = input.payment_method ?? 'momo';
  const lines = input.items.map((item, i) => {
    const tt = chosen.get(i)!;
    return { item, tt, fee: feeFor(tt.priceMinor, organization.fees[method]) };
  });
  const subtotal = lines.reduce((sum, l) => sum + l.tt.priceMinor, 0);
  const lacesFee = lines.reduce((sum, l) => sum + l.fee, 0);
  const donation = input.donation_minor ?? 0;
  const total = subtotal + donation + lacesFee;
  // Paying re-prices with the chosen method's fee, so every method's total must fit.
  const feesOf = (m: PaymentMethod) =>
    lines.reduce((sum, l) => sum + feeFor(l.tt.priceMinor, organization.fees[m]), 0);
  const largest = Math.max(total, ...PAYMENT_METHODS.map((m) => subtotal + donation + feesOf(m)));
  if (largest > MAX_ORDER_TOTAL_MINOR) {
    throw new ApiError(
      'amount_too_large',
      `This order would total ${largest} ${event.currency}; the largest order total is ${MAX_ORDER_TOTAL_MINOR} ${event.currency}. Order fewer tickets or give a smaller donation.`,
    );
  }
  if (total > 0 && !organization.paymentsEnabled) {
    throw new ApiError('payments_disabled', 'This organization cannot take payments yet.');
  }
  const quantities = quantitiesOf(lines.map((l) => l.tt.id));
  const countLast =
    !options.takeFirst &&
    [...quantities].every(([id, n]) => {
      const tt = found.ticketTypes.find((t) => t.id === id)!;
      return tt.capacity - tt.paidCount - tt.heldCount >= n;
    });
  return {
    options,
    found,
    now,
    lines,
    subtotal,
    lacesFee,
    donation,
    total,
    free: total === 0,
    quantities,
    countLast,
  };
}

/** planOrder, then createPlannedOrder. */
export async function createOrder(
  ctx: AppContext,
  tx: Tx,
  options: CreateOrderOptions,
): Promise<CreatedOrder> {
  return createPlannedOrder(ctx, tx, planOrder(ctx, options));
}

/**
 * Creates a planned order in the caller's transaction. The ticket type row is what every buyer of
 * the event contends for, and its lock is held from the update that counts the tickets to COMMIT:
 * nothing may wait on Node while it is held. When the event as read showed room (countLast), the
 * tickets are counted last, by unconditional updates that the capacity CHECK backs, and COMMIT
 * follows on the wire without waiting for them: the lock is held for no round trip. If other
 * orders took the room in between, the CHECK fails the transaction and runOrderTransaction runs
 * it once more with takeFirst. Otherwise the tickets are taken first, by one conditional UPDATE
 * per ticket type (never read-then-write), so that a sold-out order costs no writes and seats of
 * lapsed holds not yet swept can be freed. A free order's tickets are counted as paid at once,
 * instead of held and then converted.
 */
export async function createPlannedOrder(ctx: AppContext, tx: Tx, plan: OrderPlan): Promise<CreatedOrder> {
  const { session } = plan.options;
  if (session) await prepareSession(tx, session, plan.now);
  if (!plan.countLast) await takeTicketsFirst(tx, plan);
  const [created] = writeOrders(ctx, tx, [plan]) as [CreatedOrder];
  if (!plan.countLast) return created;
  const counted = [...plan.quantities].map(([id, n]) => countTickets(tx, id, countsOf(plan, n)));
  const written = Promise.all([created.written, ...counted]);
  written.catch(() => {}); // whoever commits awaits them
  return { ...created, written };
}

/** `n` tickets of a plan as countTickets counts them: paid at once when the order is free */
export function countsOf(plan: OrderPlan, n: number): { held: number; paid: number } {
  return plan.free ? { held: 0, paid: n } : { held: n, paid: 0 };
}

/** The refusal of an order that wants `n` more tickets of ticket type `id` than are left. */
export function soldOut(plan: OrderPlan, id: string, n: number): ApiError {
  const name = plan.found.ticketTypes.find((t) => t.id === id)!.name;
  return new ApiError('sold_out', `${name} is sold out: not enough tickets left for ${n} more.`);
}

async function takeTicketsFirst(tx: Tx, plan: OrderPlan): Promise<void> {
  const { found, free, now } = plan;
  const ticketType = (id: string) => found.ticketTypes.find((t) => t.id === id)!;
  // Sold out as this request read it, with no hold that could lapse: a flash sale's late buyers
  // are answered without touching the ticket type row the last buyers still queue for.
  for (const [id, n] of plan.quantities) {
    const tt = ticketType(id);
    if (tt.heldCount === 0 && tt.capacity - tt.paidCount < n) throw soldOut(plan, id, n);
  }
  const take = (ticketTypeId: string, n: number) =>
    free ? takePaidIfAvailable(tx, new Map([[ticketTypeId, n]])) : holdTickets(tx, ticketTypeId, n);
  for (const [id, n] of plan.quantities) {
    if (await take(id, n)) continue;
    // Seats held by lapsed orders not yet swept are free in truth: release them, try once more.
    if ((await expireLapsedHolds(tx, id, now)) > 0 && (await take(id, n))) continue;
    throw soldOut(plan, id, n);
  }
}

/**
 * Writes planned orders, their registrations and what follows from them, waiting on no statement;
 * their tickets are counted (or taken) by the caller. However many orders, the rows of each table
 * go out in one statement of fixed text (a JSON array of rows), prepared once per connection.
 */
export function writeOrders(ctx: AppContext, tx: Tx, plans: OrderPlan[]): CreatedOrder[] {
  if (plans.length === 0) return [];
  const created = plans.map((plan) => orderRows(ctx, plan));
  // Everything the orders write goes out together (one round trip; statements on one connection
  // run in the order sent, so the registrations follow their orders). A free order is written
  // paid, as confirmOrderPaid (order-lifecycle.ts) leaves a paid order: registrations confirmed,
  // then recordOrdersPaid's session completion and order.paid outbox row, shared by both
  // (test/orders/create-order.test.ts compares a free order with its webhook). A pending order
  // gets its hold-expiry job.
  const at = (d: Date | null) => d?.toISOString() ?? null;
  const paid = created.filter((c) => c.order.status === 'paid');
  const pending = created.filter((c) => c.order.status === 'pending');
  const writes = [
    ctx.database.rows(
      insertRows(
        orders,
        created.map(({ order: o }) => ({
          id: o.id,
          organization_id: o.organizationId,
          event_id: o.eventId,
          checkout_session_id: o.checkoutSessionId,
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
        })),
      ),
      tx,
    ),
    ctx.database.rows(
      insertRows(
        registrations,
        created.flatMap((c) =>
          c.registrations.map((r) => ({
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
          })),
        ),
      ),
      tx,
    ),
    paid.length > 0
      ? recordOrdersPaid(
          tx,
          paid.map((c) => ({
            order: c.order,
            data: toOrderOut(c.order, c.registrations),
            now: c.order.paidAt!,
          })),
        )
      : undefined,
    pending.length > 0
      ? enqueueJobs(
          tx,
          pending.map((c) => ({
            kind: HOLD_EXPIRY_JOB,
            payload: { order_id: c.order.id },
            runAt: c.order.holdExpiresAt!,
            dedupeKey: `hold:${c.order.id}`,
          })),
        )
      : undefined,
  ];
  const written = Promise.all(writes);
  written.catch(() => {}); // whoever commits awaits them
  return created.map((c) => ({ ...c, written }));
}

/** A planned order's rows, as writeOrders writes them. */
function orderRows(ctx: AppContext, plan: OrderPlan): { order: OrderRow; registrations: RegistrationRow[] } {
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
    paymentMethod: total > 0 ? (input.payment_method ?? null) : null,
    buyerName: input.buyer.name.trim(),
    buyerEmail: input.buyer.email.trim(),
    buyerPhone: normalizePhone(input.buyer.phone)!,
    waiverVersion: event.waiverRequired ? event.waiverVersion : null,
    waiverAcceptedAt: event.waiverRequired ? now : null,
    holdExpiresAt: free ? null : holdExpiresAt,
    paidAfterExpiry: false,
    // only a hold needs it: a free order is paid at once
    clientIpHash: free ? null : (options.clientIpHash ?? null),
    paidAt: free ? now : null,
    closedAt: null,
    createdAt: now,
    updatedAt: now,
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
    answers: l.item.answers ?? {},
    status: free ? 'confirmed' : 'pending',
    createdAt: now,
  }));
  return { order, registrations: regs };
}
