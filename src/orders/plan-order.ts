// Planning an order: every check that needs no statement, and its price, before anything is
// written (createPlannedOrder and order-batches.ts write the plan).
import {
  feeFor,
  isRegistrationOpen,
  methodFee,
  quantitiesOf,
  type EventWithTickets,
  type Quantities,
  type TicketTypeRow,
} from '../events/index.ts';
import type { AppContext, PricedMethod } from '../context.ts';
import {
  ApiError,
  currentTraceContext,
  methodsForCurrency,
  notFound,
  payableUnit,
  validationError,
} from '../platform/index.ts';
import type { CreateOrderInput, OrderItemInput } from './order-in.ts';
import { checkInput, unstorableText } from './order-rules.ts';

/**
 * The highest order total, in minor units, under any payment method
 * (docs/decisions/amount-ceilings.md): far inside PostgreSQL's integer, whatever method the buyer
 * then pays with.
 */
export const MAX_ORDER_TOTAL_MINOR = 1_000_000_000;

/** What an order takes from the hosted checkout's session (checkout/sessions.ts). */
interface OrderSession {
  id: string;
  eventId: string;
  clientReferenceId: string | null;
  /** redirect | embedded: kept on the order, for the organizer's channel filter */
  uiMode: string;
  /** the trace the session's order belongs to (checkout_sessions.trace_context) */
  traceContext?: string | null;
}

export interface CreateOrderOptions {
  organizationId: string;
  apiClientId: string;
  /**
   * The hosted checkout's session, null for headless orders. Its caller (site/place-order.ts) has
   * locked it and settled its earlier attempt in this transaction, and completes it when the order
   * is paid at once (free).
   */
  session: OrderSession | null;
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
  /** the language of the checkout page the buyer placed it on (en, sw); mails to them follow it */
  locale?: string | null;
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
  /**
   * the trace of the request that planned the order (platform/tracing.ts), taken now: a batch of
   * orders is written in one request's turn (order-batches.ts), but each order's hold-expiry job
   * and order.paid event continue its own request's trace
   */
  traceContext: string | null;
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
  // The methods the event's currency takes; one it does not take is refused by checkInput.
  const methods = methodsForCurrency(event.currency, ctx.paymentMethods, organization.optedInMethods);
  const method = methods.find((m) => m.key === input.payment_method) ?? methods[0];
  const unit = payableUnit(event.currency);
  const feeOf = (m: PricedMethod | undefined, price: number) =>
    m ? feeFor(price, methodFee(organization.fees, m), unit) : 0;
  const lines = input.items.map((item, i) => {
    const tt = chosen.get(i)!;
    return { item, tt, fee: feeOf(method, tt.priceMinor) };
  });
  const subtotal = lines.reduce((sum, l) => sum + l.tt.priceMinor, 0);
  const lacesFee = lines.reduce((sum, l) => sum + l.fee, 0);
  const donation = input.donation_minor ?? 0;
  const total = subtotal + donation + lacesFee;
  // Paying re-prices with the chosen method's fee, so every method's total must fit.
  const feesOf = (m: PricedMethod) => lines.reduce((sum, l) => sum + feeOf(m, l.tt.priceMinor), 0);
  const largest = Math.max(total, ...methods.map((m) => subtotal + donation + feesOf(m)));
  if (largest > MAX_ORDER_TOTAL_MINOR) {
    throw new ApiError(
      'amount_too_large',
      `This order would total ${largest} ${event.currency}; the largest order total is ${MAX_ORDER_TOTAL_MINOR} ${event.currency}. Order fewer tickets or give a smaller donation.`,
    );
  }
  if (total > 0 && !organization.paymentsEnabled) {
    throw new ApiError('payments_disabled', 'This organization cannot take payments yet.');
  }
  if (total > 0 && !method) {
    throw new ApiError('payments_disabled', `No payment method takes ${event.currency} here yet.`);
  }
  const quantities = quantitiesOf(lines.map((l) => l.tt.id));
  const ticketType = (id: string) => found.ticketTypes.find((t) => t.id === id)!;
  // Sold out as this request read it, with no hold that could lapse: refused before any statement
  // or transaction, so that a flash sale's late buyers cost the database nothing.
  for (const [id, n] of quantities) {
    const tt = ticketType(id);
    if (tt.heldCount === 0 && tt.capacity - tt.paidCount < n) throw soldOut(found, id, n);
  }
  const countLast =
    !options.takeFirst &&
    [...quantities].every(([id, n]) => {
      const tt = ticketType(id);
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
    traceContext: currentTraceContext(),
  };
}

/** The refusal of an order that wants `n` more tickets of ticket type `id` than are left. */
export function soldOut(found: EventWithTickets, id: string, n: number): ApiError {
  const name = found.ticketTypes.find((t) => t.id === id)!.name;
  return new ApiError('sold_out', `${name} is sold out: not enough tickets left for ${n} more.`);
}
