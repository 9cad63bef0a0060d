// The retention pass: a recurring job (about once a day, and at each start) that applies the
// retention settings (config.ts `retention`, docs/privacy.md):
// - buyer_data: orders of events that ended more than RETENTION_BUYER_DATA_DAYS ago lose their
//   buyer's and participants' personal data (redact-orders.ts); amounts and counts stay;
// - webhook_deliveries, webhook_events: finished deliveries (with their attempts) last changed,
//   and outbox events written, more than RETENTION_WEBHOOK_DAYS ago are deleted; never a pending
//   delivery, nor an event still in the outbox queue;
// - unpaid_orders, checkout_sessions, member_records: unpaid orders that expired or were cancelled,
//   checkout sessions that expired without completing, and ended app sessions, password resets
//   and invitations are deleted RETENTION_EXPIRED_DAYS after they ended; an order with money in
//   play (an approved or awaited payment, a refund) never is.
// Each phase walks its table by key in batches of BATCH rows, each batch a transaction of its
// own, so no transaction holds many rows. A run stops between batches after its time budget and
// keeps where it stopped in the job's payload; the next run, due at once, goes on from there.
import type { AppContext } from '../context.ts';
import { deleteEndedSessions, findEndedSessions } from '../checkout/index.ts';
import { deleteOrderMails } from '../confirmations/index.ts';
import { listEventsEndedBefore } from '../events/index.ts';
import { deleteEndedMemberRecords } from '../members/index.ts';
import {
  deleteEndedUnpaidOrders,
  findEndedUnpaidOrders,
  findUnredactedOrders,
  lockEndedUnpaidOrders,
  sessionsWithOrders,
  type OrderRef,
} from '../orders/index.ts';
import { deleteFailedAttempts, ordersWithMoney } from '../payments/index.ts';
import type { JobHandlerEntry } from '../platform/index.ts';
import { deleteFinishedDeliveries, deleteOldEvents } from '../webhooks/index.ts';
import { countsOut, redactOrderSet } from './redact-orders.ts';

export const RETENTION_JOB = 'privacy.retention_pass';

const DAY_MS = 24 * 3600_000;
/** Between the end of one pass and the start of the next. */
const PASS_EVERY_MS = DAY_MS;
/** Rows per batch (per transaction). */
const BATCH = 500;
/** Events read per page in the buyer_data phase. */
const EVENT_PAGE = 50;
/** A run stops after this much work (between batches), so that a stop or a lease never waits long. */
const RUN_BUDGET_MS = 10_000;

const PHASES = [
  'buyer_data',
  'webhook_deliveries',
  'webhook_events',
  'unpaid_orders',
  'checkout_sessions',
  'member_records',
] as const;
type Phase = (typeof PHASES)[number];

/** Where a pass stopped: in `phase`, after the row (or event) `after`; null: at its start. */
export interface RetentionProgress {
  phase: Phase;
  after: string | null;
}

/** What a pass (or a part of one) changed, by name: rows redacted or deleted. */
export type RetentionCounts = Record<string, number>;

interface PhaseStep {
  /** the phase is finished */
  done: boolean;
  /** where to go on from when it is not */
  after: string | null;
}

interface PassContext {
  ctx: AppContext;
  now: Date;
  /** performance.now() after which a phase stops between batches */
  deadline: number;
  counts: RetentionCounts;
}

function add(counts: RetentionCounts, name: string, n: number): void {
  if (n > 0) counts[name] = (counts[name] ?? 0) + n;
}

const daysBefore = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS);
const outOfTime = (pass: PassContext) => performance.now() >= pass.deadline;

/** Redacts the orders of events that ended before the buyer data cutoff, an event at a time. */
async function redactEndedEvents(pass: PassContext, after: string | null): Promise<PhaseStep> {
  const { ctx } = pass;
  const before = daysBefore(pass.now, ctx.config.retention.buyerDataDays);
  let cursor = after;
  for (;;) {
    const events = await listEventsEndedBefore(ctx.database.db, { before, after: cursor, limit: EVENT_PAGE });
    for (const event of events) {
      let last: OrderRef | null = null;
      for (;;) {
        const refs = await findUnredactedOrders(ctx.database.db, {
          organizationId: event.organizationId,
          eventId: event.id,
          after: last,
          limit: BATCH,
        });
        if (refs.length === 0) break;
        const counts = await ctx.database.transaction((tx) =>
          redactOrderSet(tx, refs, { storedResponses: false }),
        );
        for (const [name, n] of Object.entries(countsOut(counts))) add(pass.counts, `${name}_redacted`, n);
        last = refs.at(-1)!;
        if (refs.length < BATCH) break;
        // Out of time within an event: the next run starts it again, and finds only what is left.
        if (outOfTime(pass)) return { done: false, after: cursor };
      }
      cursor = event.id;
      if (outOfTime(pass)) return { done: false, after: cursor };
    }
    if (events.length < EVENT_PAGE) return { done: true, after: null };
  }
}

/** Runs page(after) until it reports no next page, or the time is up. */
async function walk(
  pass: PassContext,
  after: string | null,
  page: (after: string | null) => Promise<string | null>,
): Promise<PhaseStep> {
  let cursor = after;
  for (;;) {
    cursor = await page(cursor);
    if (cursor === null) return { done: true, after: null };
    if (outOfTime(pass)) return { done: false, after: cursor };
  }
}

function deleteDeliveries(pass: PassContext, after: string | null): Promise<PhaseStep> {
  const before = daysBefore(pass.now, pass.ctx.config.retention.webhookDays);
  return walk(pass, after, async (cursor) => {
    const page = await pass.ctx.database.transaction((tx) =>
      deleteFinishedDeliveries(tx, { before, after: cursor, limit: BATCH }),
    );
    add(pass.counts, 'webhook_deliveries_deleted', page.deleted);
    add(pass.counts, 'webhook_attempts_deleted', page.attempts);
    return page.last;
  });
}

function deleteEvents(pass: PassContext, after: string | null): Promise<PhaseStep> {
  const before = daysBefore(pass.now, pass.ctx.config.retention.webhookDays);
  return walk(pass, after, async (cursor) => {
    const page = await pass.ctx.database.transaction((tx) =>
      deleteOldEvents(tx, { before, after: cursor, limit: BATCH }),
    );
    add(pass.counts, 'outbox_events_deleted', page.deleted);
    return page.last;
  });
}

/** Deletes unpaid orders that ended before the cutoff, with their failed attempts and mail records. */
function deleteUnpaidOrders(pass: PassContext, after: string | null): Promise<PhaseStep> {
  const { ctx } = pass;
  const closedBefore = daysBefore(pass.now, ctx.config.retention.expiredDays);
  return walk(pass, after, async (cursor) => {
    const refs = await findEndedUnpaidOrders(ctx.database.db, { closedBefore, after: cursor, limit: BATCH });
    if (refs.length === 0) return null;
    await ctx.database.transaction(async (tx) => {
      // Locked first: a late payment settling meanwhile waits for this transaction.
      const locked = await lockEndedUnpaidOrders(
        tx,
        refs.map((r) => r.id),
      );
      const withMoney = await ordersWithMoney(tx, locked);
      const doomed = locked.filter((id) => !withMoney.has(id));
      add(pass.counts, 'payment_attempts_deleted', await deleteFailedAttempts(tx, doomed));
      add(pass.counts, 'order_mails_deleted', await deleteOrderMails(tx, doomed));
      const deleted = await deleteEndedUnpaidOrders(tx, doomed);
      add(pass.counts, 'unpaid_orders_deleted', deleted.orders);
      add(pass.counts, 'registrations_deleted', deleted.registrations);
    });
    return refs.length < BATCH ? null : refs.at(-1)!.id;
  });
}

/** Deletes checkout sessions that expired before the cutoff without completing, unless an order points at one. */
function deleteSessions(pass: PassContext, after: string | null): Promise<PhaseStep> {
  const { ctx } = pass;
  const before = daysBefore(pass.now, ctx.config.retention.expiredDays);
  return walk(pass, after, async (cursor) => {
    const ids = await findEndedSessions(ctx.database.db, { before, after: cursor, limit: BATCH });
    if (ids.length === 0) return null;
    await ctx.database.transaction(async (tx) => {
      const kept = await sessionsWithOrders(tx, ids);
      const deleted = await deleteEndedSessions(
        tx,
        ids.filter((id) => !kept.has(id)),
        before,
      );
      add(pass.counts, 'checkout_sessions_deleted', deleted);
    });
    return ids.length < BATCH ? null : ids.at(-1)!;
  });
}

/** Deletes ended app sessions, password resets and invitations; every row it finds goes. */
async function deleteMemberRecords(pass: PassContext): Promise<PhaseStep> {
  const before = daysBefore(pass.now, pass.ctx.config.retention.expiredDays);
  for (;;) {
    const deleted = await pass.ctx.database.transaction((tx) =>
      deleteEndedMemberRecords(tx, { before, limit: BATCH }),
    );
    add(pass.counts, 'member_sessions_deleted', deleted.sessions);
    add(pass.counts, 'password_resets_deleted', deleted.passwordResets);
    add(pass.counts, 'invitations_deleted', deleted.invitations);
    if (Math.max(deleted.sessions, deleted.passwordResets, deleted.invitations) < BATCH) {
      return { done: true, after: null };
    }
    if (outOfTime(pass)) return { done: false, after: null };
  }
}

const RUN_PHASE: Record<Phase, (pass: PassContext, after: string | null) => Promise<PhaseStep>> = {
  buyer_data: redactEndedEvents,
  webhook_deliveries: deleteDeliveries,
  webhook_events: deleteEvents,
  unpaid_orders: deleteUnpaidOrders,
  checkout_sessions: deleteSessions,
  member_records: deleteMemberRecords,
};

/**
 * Runs the pass from `progress` (its start when absent) with the clock at `now`, until it ends or
 * `budgetMs` of work is done (checked between batches: 0 runs one batch or event). Returns what it
 * changed, and where it stopped when it did not end.
 */
export async function runRetentionPass(
  ctx: AppContext,
  options: { now: Date; progress?: RetentionProgress | null; budgetMs?: number },
): Promise<{ done: boolean; progress: RetentionProgress | null; counts: RetentionCounts }> {
  const pass: PassContext = {
    ctx,
    now: options.now,
    deadline: performance.now() + (options.budgetMs ?? RUN_BUDGET_MS),
    counts: {},
  };
  const start = options.progress ?? null;
  for (const phase of PHASES.slice(start ? PHASES.indexOf(start.phase) : 0)) {
    const step = await RUN_PHASE[phase](pass, start?.phase === phase ? start.after : null);
    if (!step.done) return { done: false, progress: { phase, after: step.after }, counts: pass.counts };
    const next = PHASES[PHASES.indexOf(phase) + 1];
    if (next && outOfTime(pass))
      return { done: false, progress: { phase: next, after: null }, counts: pass.counts };
  }
  return { done: true, progress: null, counts: pass.counts };
}

/** The progress a job's payload carries, when it is one. */
function progressOf(payload: Record<string, unknown>): RetentionProgress | null {
  const progress = payload.progress as Partial<RetentionProgress> | undefined;
  if (!progress || !PHASES.includes(progress.phase as Phase)) return null;
  return {
    phase: progress.phase as Phase,
    after: typeof progress.after === 'string' ? progress.after : null,
  };
}

export function privacyJobHandlers(ctx: AppContext): Record<string, JobHandlerEntry> {
  return {
    // Outside a transaction: each batch is a transaction of its own.
    [RETENTION_JOB]: {
      outsideTransaction: true,
      run: async ({ job, now }) => {
        const result = await runRetentionPass(ctx, { now, progress: progressOf(job.payload) });
        if (Object.keys(result.counts).length > 0) {
          ctx.log.info({ ...result.counts, finished: result.done }, 'retention pass');
        }
        if (!result.done) return { retryAt: now, payload: { progress: result.progress } };
        return { retryAt: new Date(now.getTime() + PASS_EVERY_MS), payload: {} };
      },
    },
  };
}
