// Column helpers shared by every module's schema.
import { timestamp } from 'drizzle-orm/pg-core';

/**
 * A timestamp with time zone at millisecond precision: the contract's timestamps carry milliseconds
 * (docs/contract.md#envelopes-timestamps-and-money).
 */
export const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });
