// The database-backed job queue: rows claimed with FOR UPDATE SKIP LOCKED, safe with many processes.
import { sql } from 'drizzle-orm';
import { bigserial, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from './columns.schema.ts';

export const jobs = pgTable(
  'jobs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    kind: text('kind').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull().default({}),
    /** at most one live job per dedupe key (e.g. one hold-expiry job per order) */
    dedupeKey: text('dedupe_key'),
    runAt: ts('run_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull().default(10),
    /** a claimed job is invisible to other workers until its lease runs out */
    lockedUntil: ts('locked_until'),
    lockedBy: text('locked_by'),
    lastError: text('last_error'),
    /** set when attempts are exhausted; the row stays for inspection */
    failedAt: ts('failed_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    /**
     * the trace context of the request that queued the job (W3C traceparent, then a comma and the
     * tracestate if any), which its runs continue; null when tracing was off (platform/tracing.ts)
     */
    traceContext: text('trace_context'),
  },
  (t) => [
    index('jobs_due_idx')
      .on(t.runAt)
      .where(sql`${t.failedAt} IS NULL`),
    uniqueIndex('jobs_dedupe_key')
      .on(t.dedupeKey)
      .where(sql`${t.failedAt} IS NULL`),
  ],
);
