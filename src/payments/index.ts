// Payment methods and providers, payment attempts, callbacks, reconciliation and refunds.
export { closePaymentAttempt, resendOpensAt } from './close-attempt.ts';
export { paymentJobHandlers } from './collect.ts';
export { deleteFailedAttempts, ordersWithMoney, redactPayerNumbers } from './erase-payer-data.ts';
export { createPaymentGateway, startLocalSimulator } from './gateway.ts';
export {
  catalogueEntry,
  isPaymentMethod,
  methodName,
  PAYMENT_METHOD_CATALOGUE,
} from './methods/catalogue.ts';
export type { PaymentMethod } from './methods/catalogue.ts';
export { checkPaymentMethods, PAYMENT_METHOD_REGISTRY } from './methods/registry.ts';
export type { PaymentMethodDefinition } from './methods/registry.ts';
export {
  attemptsOfOrder,
  countPaymentAttempts,
  FAILED_PAYMENTS_PER_ORDER,
  failedPaymentsOf,
  hasOpenAttempt,
  latestAttempt,
} from './payment-attempts.ts';
export type { PaymentAttemptRow } from './payment-attempts.ts';
export { noteReturn } from './note-return.ts';
export { registerPaymentRoutes } from './payments.routes.ts';
export { REFUND_DESCRIPTION, refundAsked, RefundIn, RefundOut, toRefundOut } from './refunds.routes.ts';
export { listFailedRefunds, refundsOfOrder } from './process-refund.ts';
export type { RefundRow } from './process-refund.ts';
export { previewOrderRefund, refundOrder, refundPayment } from './actions/refund-order.ts';
export type { RefundOrderOptions, RefundPreview } from './actions/refund-order.ts';
export { movementsOfOrders, orderRefundsByMethod } from './money-movements.ts';
export type { MoneyMovement } from './money-movements.ts';
export { listPaymentsNeedingRefund, paymentsNeedingRefundOfOrder, REFUND_LIST_LIMIT } from './refunds.ts';
export type { PaymentNeedingRefund, RefundReason } from './refunds.ts';
export { DEFAULT_SCENARIO, scenarioFor } from './simulator/scenarios.ts';
export { listStalledPayments } from './stalled-payments.ts';
export { startPayment } from './start-payment.ts';
