// Checkout sessions, return URL and embed origin rules, session expiry.
export { registerCheckoutRoutes } from './checkout.routes.ts';
export {
  clearPrefill,
  clearPrefillOfBuyer,
  deleteEndedSessions,
  findEndedSessions,
} from './erase-session-data.ts';
export { checkoutJobHandlers, SESSION_SWEEP_JOB } from './session-jobs.ts';
export {
  completeCheckoutSessions,
  findCheckoutSessionById,
  lockCheckoutSession,
  sessionStatus,
} from './sessions.ts';
export type { CheckoutSessionRow } from './sessions.ts';
