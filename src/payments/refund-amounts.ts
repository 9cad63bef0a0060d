// What a refund of an order gives back (docs/decisions/partial-refunds.md), as a pure function of
// the order, its runners and what earlier refunds returned: the whole of what is left, some
// runners' places (ticket price plus its service fee, less the runner's share of the discount), or
// an amount (ticket money first, then the donation, then fees). A request it cannot honour is a
// reason in words, never a smaller or larger refund.

export interface RefundableOrder {
  /** what the buyer paid */
  total: number;
  subtotal: number;
  discountTotal: number;
  donationTotal: number;
  lacesFee: number;
}

export interface RefundableRunner {
  id: string;
  priceMinor: number;
  feeMinor: number;
  /** returned by an earlier refund (or no longer a place: cancelled) */
  refunded: boolean;
}

/** What earlier succeeded refunds of the order returned, by part. */
export interface Returned {
  amount: number;
  fee: number;
  donation: number;
}

export interface RefundAsked {
  amountMinor?: number | undefined;
  registrationIds?: string[] | undefined;
}

export interface RefundPlan {
  amount: number;
  fee: number;
  donation: number;
  /** the places this refund returns */
  registrationIds: string[];
  /** whether the order is refunded in full once it succeeds */
  completes: boolean;
}

/**
 * Each runner's share of the discount, pro rata to the ticket prices, the shares summing exactly
 * to the discount (largest remainders, ties to the earlier runner).
 */
export function discountShares(discount: number, prices: number[]): number[] {
  const sum = prices.reduce((a, b) => a + b, 0);
  if (discount === 0 || sum === 0) return prices.map(() => 0);
  const exact = prices.map((p) => (discount * p) / sum);
  const shares = exact.map(Math.floor);
  let rest = discount - shares.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (rest === 0) break;
    shares[i]! += 1;
    rest--;
  }
  return shares;
}

/** Splits an amount into its parts: ticket money first, then the donation, then fees. */
function split(amount: number, left: { ticket: number; donation: number; fee: number }) {
  const ticket = Math.min(amount, left.ticket);
  const donation = Math.min(amount - ticket, left.donation);
  return { fee: amount - ticket - donation, donation };
}

/** The refund to make, or why it cannot be made (the 422 refund_not_possible message). */
export function planRefund(
  order: RefundableOrder,
  runners: RefundableRunner[],
  returned: Returned,
  asked: RefundAsked,
): RefundPlan | { refusal: string } {
  const left = order.total - returned.amount;
  if (order.total === 0)
    return { refusal: 'The order was free: nothing was paid, so nothing can be refunded.' };
  if (left <= 0) return { refusal: 'Everything paid for this order was refunded already.' };
  const leftParts = {
    ticket: order.subtotal - order.discountTotal - (returned.amount - returned.fee - returned.donation),
    donation: order.donationTotal - returned.donation,
    fee: order.lacesFee - returned.fee,
  };
  const shares = discountShares(
    order.discountTotal,
    runners.map((r) => r.priceMinor),
  );
  const open = runners.filter((r) => !r.refunded);
  const whole = (registrationIds: string[]): RefundPlan => ({
    amount: left,
    fee: leftParts.fee,
    donation: leftParts.donation,
    registrationIds,
    completes: true,
  });
  const { amountMinor, registrationIds } = asked;
  if (registrationIds === undefined) {
    if (amountMinor === undefined) return whole(open.map((r) => r.id));
    if (amountMinor > left) return { refusal: tooMuch(amountMinor, left) };
    if (amountMinor === left) return whole(open.map((r) => r.id));
    return { amount: amountMinor, ...split(amountMinor, leftParts), registrationIds: [], completes: false };
  }
  const byId = new Map(runners.map((r, i) => [r.id, { runner: r, share: shares[i]! }]));
  let ticket = 0;
  let fee = 0;
  for (const id of registrationIds) {
    const found = byId.get(id);
    if (!found) return { refusal: `Registration ${id} is not one of this order's runners.` };
    if (found.runner.refunded) return { refusal: `Registration ${id} was refunded already.` };
    ticket += found.runner.priceMinor - found.share;
    fee += found.runner.feeMinor;
  }
  const rest = open.filter((r) => !registrationIds.includes(r.id));
  if (amountMinor !== undefined) {
    if (amountMinor > left) return { refusal: tooMuch(amountMinor, left) };
    if (amountMinor === left) return whole(open.map((r) => r.id));
    return { amount: amountMinor, ...split(amountMinor, leftParts), registrationIds, completes: false };
  }
  // The last places take everything else left with them (the donation, what an amount left over).
  if (rest.length === 0) return whole(registrationIds);
  if (ticket + fee > left) return { refusal: tooMuch(ticket + fee, left) };
  if (ticket + fee === left) return whole(open.map((r) => r.id));
  return { amount: ticket + fee, fee, donation: 0, registrationIds, completes: false };
}

function tooMuch(asked: number, left: number): string {
  return `This refund would return ${asked}, more than the ${left} left to refund on this order.`;
}
