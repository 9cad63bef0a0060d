// What the hosted checkout does to orders, through the orders and payments modules' functions:
// place (or dry-run) the session's order, read its payment state, and cancel. At most one order
// of a session is pending, and an order whose payment prompt is out is never replaced or
// cancelled: the session row is locked first, then the pending order, then its attempts are read.
import { hasOpenAttempt, latestAttempt, type PaymentAttemptRow } from '../payments/index.ts';
import {
  completeCheckoutSessions,
  lockCheckoutSession,
  sessionStatus,
  type CheckoutSessionRow,
} from '../checkout/index.ts';
import type { AppContext } from '../context.ts';
import { findEventOnSale, type EventWithTickets } from '../events/index.ts';
import {
  cancelPendingOrder,
  checkHoldLimit,
  createPlannedOrder,
  findOrder,
  findSessionOrder,
  lockOrder,
  lockPendingSessionOrders,
  planOrder,
  runOrderTransaction,
  type OrderRow,
} from '../orders/index.ts';
import {
  ApiError,
  transactionConflict,
  type ErrorCode,
  type Executor,
  type FieldError,
  type Tx,
} from '../platform/index.ts';
import { hashClientIp } from './buyer-limits.ts';
import { locale, msg } from './messages/current.ts';
import { offerOf } from './offer-words.ts';
import {
  checkPayment,
  estimateTotal,
  formMethod,
  parseDonation,
  toOrderInput,
  type FormValues,
  type PaymentChoice,
} from './checkout-form.ts';

export type PlaceOutcome =
  | { kind: 'invalid'; errors: FieldError[] }
  /** sold_out, sale_closed, payments_disabled, not_found: nothing the buyer can fix in a field */
  | { kind: 'refused'; code: ErrorCode; message: string }
  /** the session is complete or expired */
  | { kind: 'session_closed' }
  /** a prompt for this session's order is on the buyer's phone: no second order */
  | { kind: 'payment_in_progress' }
  /** the buyer's network already holds HOLD_LIMIT_TICKETS_PER_IP tickets of the event unpaid */
  | { kind: 'hold_limit_reached'; held: number; retryAfterSeconds: number }
  /** dry run: the order as it would be, written to nothing */
  | { kind: 'checked'; order: OrderRow }
  | { kind: 'created'; order: OrderRow; payment: PaymentChoice | null };

/** Carries an outcome out of a transaction that must not commit. */
class Rollback extends Error {
  readonly outcome: PlaceOutcome;
  constructor(outcome: PlaceOutcome) {
    super('rollback');
    this.outcome = outcome;
  }
}

const REFUSALS = new Set<ErrorCode>([
  'sold_out',
  'sale_closed',
  'payments_disabled',
  'not_found',
  'amount_below_minimum',
  'amount_too_large',
]);

export function isOpenAttempt(attempt: PaymentAttemptRow | undefined): boolean {
  return attempt !== undefined && (attempt.status === 'submitting' || attempt.status === 'pending');
}

/** Locks the session's pending order and tells whether a prompt for it is outstanding. */
async function promptOutstanding(tx: Executor, sessionId: string): Promise<boolean> {
  const current = await findSessionOrder(tx, sessionId);
  if (!current || current.status !== 'pending') return false;
  await lockOrder(tx, current.id);
  return isOpenAttempt(await latestAttempt(tx, current.id));
}

/**
 * Settles the session's earlier attempts before it gets a new order, so that a session has at most
 * one pending order: locks the session, refuses one that is complete or expired, and cancels its
 * pending orders. Refuses instead while a payment prompt for one of them is on the buyer's phone:
 * an approval would then pay for a cancelled order. Refusals are `conflict`.
 */
export async function prepareSession(tx: Tx, sessionId: string, now: Date): Promise<void> {
  const locked = await lockCheckoutSession(tx, sessionId);
  const status = sessionStatus(locked!, now);
  if (status === 'complete') throw new ApiError('conflict', 'This checkout session is already complete.');
  if (status === 'expired') throw new ApiError('conflict', 'This checkout session has expired.');
  for (const id of await lockPendingSessionOrders(tx, sessionId)) {
    if (await hasOpenAttempt(tx, id)) {
      throw new ApiError('conflict', 'A payment for this checkout is waiting for approval on the phone.');
    }
    await cancelPendingOrder(tx, id, now);
  }
}

/**
 * Validates the whole form with planOrder itself (the authority), then keeps the order, or
 * with dryRun rolls it back (the review page shows the server's own totals without holding
 * anything). Payment details are checked only when the order will cost something.
 */
export async function placeOrder(
  ctx: AppContext,
  options: {
    session: CheckoutSessionRow;
    found: EventWithTickets;
    values: FormValues;
    dryRun: boolean;
    /** the buyer's IP (request.ip): the order's hold counts against it */
    clientIp: string;
  },
): Promise<PlaceOutcome> {
  const { session, found } = options;
  // a page opened before the organizer switched donations off still sends its box: it gives nothing
  const values = found.event.donationsEnabled ? options.values : { ...options.values, donation: '' };
  const extra: FieldError[] = [];
  if (parseDonation(values.donation, found.event.currency) === null) {
    extra.push({ field: 'donation_minor', message: msg().form.wholeNumber(found.event.currency) });
  }
  const offer = offerOf(found);
  const method = formMethod(offer, values.payment_method) ?? offer.first;
  let payment: PaymentChoice | null = null;
  // A free order is paid at once and takes no payment; its places still count toward the limit.
  const holds = estimateTotal(values, found, method) > 0;
  if (holds) {
    const checked = checkPayment(offer, values.payment_method, values.payment_phone, values.buyer.phone);
    extra.push(...checked.errors);
    payment = checked.choice;
  }
  const onSale = await findEventOnSale(ctx.database.db, {
    organizationId: session.organizationId,
    eventId: session.eventId,
    now: ctx.clock.now(),
  });
  const clientIpHash = hashClientIp(ctx.keys, options.clientIp);
  try {
    return await runOrderTransaction((takeFirst) =>
      ctx.database.transaction(async (tx): Promise<PlaceOutcome> => {
        const locked = await lockCheckoutSession(tx, session.id);
        if (!locked || sessionStatus(locked, ctx.clock.now()) !== 'open') return { kind: 'session_closed' };
        if (await promptOutstanding(tx, session.id)) return { kind: 'payment_in_progress' };
        // Before any ticket is taken: a refusal writes nothing and waits on no ticket type row.
        const room = await checkHoldLimit(tx, {
          eventId: session.eventId,
          clientIpHash,
          tickets: values.items.length,
          limit: ctx.config.holdLimitTicketsPerIp,
          freeWindowMs: ctx.config.holdMinutes * 60_000,
          clock: ctx.clock,
          sessionId: session.id,
        });
        if (!room.allowed) {
          return { kind: 'hold_limit_reached', held: room.held, retryAfterSeconds: room.retryAfterSeconds };
        }
        let order: OrderRow;
        try {
          const plan = planOrder(ctx, {
            organizationId: session.organizationId,
            apiClientId: session.apiClientId,
            session: locked,
            input: toOrderInput(values, session, found.event.currency),
            found: onSale,
            takeFirst,
            clientIpHash,
            locale: locale(),
          });
          await prepareSession(tx, session.id, plan.now);
          const created = await createPlannedOrder(ctx, tx, plan);
          order = created.order;
          // A free order is paid at once, and its session with it.
          const completed =
            order.status === 'paid'
              ? completeCheckoutSessions(tx, [{ sessionId: session.id, at: order.paidAt! }])
              : undefined;
          await Promise.all([created.written, completed]);
        } catch (error) {
          if (error instanceof ApiError && error.code === 'validation_failed') {
            throw new Rollback({ kind: 'invalid', errors: [...(error.errors ?? []), ...extra] });
          }
          throw error;
        }
        if (extra.length > 0) throw new Rollback({ kind: 'invalid', errors: extra });
        if (options.dryRun) throw new Rollback({ kind: 'checked', order });
        return { kind: 'created', order, payment: order.total > 0 ? payment : null };
      }),
    );
  } catch (error) {
    if (error instanceof Rollback) return error.outcome;
    if (error instanceof ApiError) {
      if (error.code === 'conflict') return { kind: 'session_closed' };
      if (REFUSALS.has(error.code)) return { kind: 'refused', code: error.code, message: error.message };
    }
    // Only when a payment for this session is being settled at this very moment.
    if (transactionConflict(error)) return { kind: 'payment_in_progress' };
    throw error;
  }
}

export interface SessionPayment {
  order: OrderRow | null;
  attempt: PaymentAttemptRow | null;
}

/** The session's order to show (the paid one, else the latest) and its latest payment attempt. */
export async function loadSessionPayment(db: Executor, session: CheckoutSessionRow): Promise<SessionPayment> {
  const ref = await findSessionOrder(db, session.id);
  if (!ref) return { order: null, attempt: null };
  // The attempt before the order: a payment settles both in one transaction, so an order read
  // after a settled attempt is paid too. The other way round, a settlement committing between
  // the reads showed a paid attempt on a pending order, and the page offered to pay again.
  const attempt = (await latestAttempt(db, ref.id)) ?? null;
  const order = (await findOrder(db, session.organizationId, ref.id)) ?? null;
  return { order, attempt: order ? attempt : null };
}

/**
 * The buyer gave up: release the pending order's tickets, unless a prompt is on the phone (an
 * approval must still find its order payable; the hold then lapses on its own).
 */
export async function cancelCheckout(ctx: AppContext, session: CheckoutSessionRow): Promise<void> {
  await ctx.database.transaction(async (tx) => {
    await lockCheckoutSession(tx, session.id);
    if (await promptOutstanding(tx, session.id)) return;
    const current = await findSessionOrder(tx, session.id);
    if (current?.status === 'pending') await cancelPendingOrder(tx, current.id, ctx.clock.now());
  });
}
