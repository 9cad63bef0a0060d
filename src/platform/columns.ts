// Column helpers shared by every module's schema.
import { timestamp } from 'drizzle-orm/pg-core';

/** A timestamp with time zone at millisecond precision (SPEC.md timestamps carry milliseconds). */
export const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });
