// What every module receives: configuration, database, clock, limiter, logger, service keys, and
// the services built once at start. It knows no module: a module that adds a service declares its
// field here from its own file (`declare module '../context.ts'`, as payments/payment-gateway.ts
// does), so that createService cannot build a context without it and no request finds one missing.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Clock } from './platform/clock.ts';
import type { Database } from './platform/db.ts';
import type { OutageWatch } from './platform/db-errors.ts';
import type { ServiceKeys } from './platform/keys.ts';
import type { AdmissionGate } from './platform/admission.ts';
import type { OverloadMonitor } from './platform/overload.ts';
import type { RateLimiter } from './platform/rate-limit.ts';

/**
 * A payment method as pricing sees it: its key and the fee it takes when an organization's
 * schedule names none. The payments registry's definitions (payments/methods/registry.ts) are
 * these and more.
 */
export interface PricedMethod {
  readonly key: string;
  readonly defaultFee: { readonly percent_bp: number; readonly fixed_minor: number };
  /** the currencies it takes: an event is offered the methods of its own */
  readonly currencies: readonly string[];
  /** offered only by organizations that turned it on (organizations.opted_in_methods): cards */
  readonly optIn?: boolean;
}

export interface AppContext {
  config: Config;
  database: Database;
  clock: Clock;
  limiter: RateLimiter;
  /** admission for the routes that create orders and checkout sessions (platform/admission.ts) */
  writes: AdmissionGate;
  log: Logger;
  keys: ServiceKeys;
  /**
   * the payment methods this service takes, in the registry's order: an event offers those of its
   * currency (platform/currency.ts methodsForCurrency), the first of them its default
   */
  paymentMethods: readonly PricedMethod[];
  /** the service's one overload monitor, shared by its hosts (platform/shed-requests.ts) */
  readonly overload: OverloadMonitor;
  /** whether the database is out of reach, shared by the hosts and the jobs (platform/db-errors.ts) */
  readonly outage: OutageWatch;
}
