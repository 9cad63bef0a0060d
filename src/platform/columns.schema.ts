// Column helpers shared by every module's tables. A schema file, so that other schema files import it
// directly, as drizzle-kit loads them: through platform's entry file they would load all the plumbing.
import { timestamp } from 'drizzle-orm/pg-core';

/**
 * A timestamp with time zone at millisecond precision: the contract's timestamps carry milliseconds
 * (docs/contract.md#envelopes-timestamps-and-money).
 */
export const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });
