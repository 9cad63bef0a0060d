// Orders, registrations, holds, the order state machine and the partner order routes.
export { correctRunner } from './actions/correct-runner.ts';
export { transferRunner } from './actions/transfer-runner.ts';
export type { NewRunner, TransferredRunner } from './actions/transfer-runner.ts';
export {
  dialCodeOf,
  isEmail,
  isPhoneNumber,
  normalizePhone,
  phoneCountryOf,
  phoneWords,
  type PhoneCountry,
} from './contact.ts';
export { countActiveHolds } from './count-active-holds.ts';
export { countOrders } from './count-orders.ts';
export type { OrderCounts } from './count-orders.ts';
export { createPlannedOrder, runOrderTransaction } from './create-order.ts';
export {
  deleteEndedUnpaidOrders,
  findEndedUnpaidOrders,
  findOrdersOfBuyer,
  findUnredactedOrders,
  lockEndedUnpaidOrders,
  redactOrderJson,
  redactOrders,
  sessionsWithOrders,
} from './erase-buyer-data.ts';
export type { OrderRef } from './erase-buyer-data.ts';
export { checkHoldLimit, firstHoldEnds } from './hold-limits.ts';
export {
  findOrder,
  findOrders,
  findSessionOrder,
  lockPendingSessionOrders,
  paidAfterExpiryOrderIds,
} from './list-orders.ts';
export { OrderBatches } from './order-batches.ts';
export { orderCodesOf } from './order-codes.ts';
export type { CreateOrderInput } from './order-in.ts';
export { orderJobHandlers } from './order-jobs.ts';
export {
  cancelPendingOrder,
  confirmOrderPaid,
  expireOrderHold,
  lockOrder,
  markOrderRefunded,
} from './order-lifecycle.ts';
export type { PayOutcome } from './order-lifecycle.ts';
export { loadOrderOut, OrderOut, registrationsOf } from './order-out.ts';
export type { OrderRow, RegistrationRow } from './order-out.ts';
export { moneyOrderBatches, moneyOrderIds, takingsByMethod, takingsByTicketType } from './event-money.ts';
export type { MoneyOrder } from './event-money.ts';
export { extendHold, repriceOrder, showPaymentFailure } from './order-payment.ts';
export { ageOnRaceDay, checkInput, localDate, MAX_TICKETS_PER_ORDER } from './order-rules.ts';
export { paidTicketsPerDay, paidTotals, pendingOrderIds } from './order-sales.ts';
export type { FailureKind } from './order-state.ts';
export { registerOrderRoutes } from './orders.routes.ts';
export { planOrder } from './plan-order.ts';
export {
  confirmedRegistrations,
  joinRoster,
  rosterColumns,
  rosterExportColumns,
  selectRoster,
} from './registration-roster.ts';
export type { ConfirmedRegistration } from './registration-roster.ts';
export { ORDER_CHANNELS, ORDER_STATUSES, orderBatches, searchOrders } from './search-orders.ts';
export type { OrderChannel, OrderKey, OrderListRow, OrderSearch } from './search-orders.ts';
