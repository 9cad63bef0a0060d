// Retention and the erasure of one buyer's data, each module's part called in turn.
export { buyerEmailProblem, eraseBuyer } from './erase-buyer.ts';
export type { BuyerErasure } from './erase-buyer.ts';
export { countsOut } from './redact-orders.ts';
export { privacyJobHandlers, RETENTION_JOB } from './retention-pass.ts';
