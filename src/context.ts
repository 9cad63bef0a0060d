// What every module receives: configuration, database, clock, limiter, logger and service keys.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Clock } from './platform/clock.ts';
import type { Database } from './platform/db.ts';
import type { ServiceKeys } from './platform/keys.ts';
import type { AdmissionGate } from './platform/admission.ts';
import type { RateLimiter } from './platform/rate-limit.ts';
import type { PaymentGateway } from './payments/collect.ts';

export interface AppContext {
  config: Config;
  database: Database;
  clock: Clock;
  limiter: RateLimiter;
  /** admission for the routes that create orders and checkout sessions (platform/admission.ts) */
  writes: AdmissionGate;
  log: Logger;
  keys: ServiceKeys;
  /** mobile-money providers; absent when the service runs without payments */
  payments?: PaymentGateway;
}
