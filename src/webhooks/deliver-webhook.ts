// Attempts at deliveries, many at a time: take, send, record. An event's first attempts are sent
// before their deliveries' rows exist: the sender leases the event's row in the outbox queue,
// sends, and then writes each delivery once, with its outcome and attempt, deleting the queue row
// in the same statement (a lease that runs out, after a crash, sends the event again: at least
// once). Later attempts claim their rows: a lease taken only while a delivery is pending and due,
// so two senders (or processes) never send the same delivery at once, and a delivered one is never
// sent again. Sends happen with no transaction open; outcomes are written by one statement per
// batch (record-attempts.ts; webhook-sender.ts gathers them).
import { sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { continueStoredTrace, jobsInsert, randomString, tracingOn } from '../platform/index.ts';
import { decideOutcome, parseRetryAfter, type AttemptOutcome } from './delivery-schedule.ts';
import { sendWebhook, type SendAgents, type SendOutcome } from './send-webhook.ts';
import { webhookHeaders } from './sign-webhook.ts';
import { anyOf, recordAttempts } from './record-attempts.ts';
import { newDeliveryId, type OutboxFollower } from './webhook-deliveries.ts';
import { signingSecrets } from './webhook-endpoints.ts';
import { outboxEvents, outboxQueue, webhookDeliveries, webhookEndpoints } from './webhooks.schema.ts';

/** Time allowed between taking a delivery and recording its attempt, beyond the send deadline. */
const LEASE_MARGIN_MS = 30_000;

const leaseUntil = (ctx: AppContext, now: Date) =>
  new Date(now.getTime() + ctx.webhooks.timeoutMs + LEASE_MARGIN_MS).toISOString();

/** The body as sent: the outbox payload with its three fields in the documented order. */
export function webhookBody(payload: Record<string, unknown>): string {
  return JSON.stringify({ type: payload.type, timestamp: payload.timestamp, data: payload.data });
}

/** What a send needs of its endpoint. */
type SendingEndpoint = Pick<
  typeof webhookEndpoints.$inferSelect,
  | 'id'
  | 'organizationId'
  | 'url'
  | 'status'
  | 'secret'
  | 'previousSecret'
  | 'previousSecretExpiresAt'
  | 'failingSince'
>;

/** A delivery under this process's lease, with what its send needs. */
export interface ClaimedDelivery {
  id: string;
  /** the lease owner: only a delivery still leased by its claim is recorded */
  owner: string;
  /** set on a first attempt taken from the outbox queue: the delivery has no row until recorded */
  fresh?: FreshOrigin;
  /** attempts made before this one */
  attempts: number;
  /** when it fell due: with `id`, its place in the queue */
  nextAttemptAt: Date;
  endpoint: SendingEndpoint;
  /** `traceContext`: the trace its attempt continues (the event's trace_context) */
  event: { id: string; payload: Record<string, unknown>; traceContext: string | null };
}

/** Where a first attempt came from: its event's queue row, and what its delivery's row needs. */
interface FreshOrigin {
  seq: number;
  organizationId: string;
  type: string;
}

/** One send and what it means, ready to be recorded. */
export interface FinishedAttempt {
  delivery: ClaimedDelivery;
  result: SendOutcome;
  outcome: AttemptOutcome;
  error: string | null;
  sentAt: Date;
  done: Date;
}

/** A place in the queue of due deliveries: a claim may start after the last one it took. */
export interface QueuePlace {
  nextAttemptAt: Date;
  id: string;
}

/** An endpoint as the statements read it (dates are strings from some drivers). */
interface EndpointRow {
  endpointId: string;
  organizationId: string;
  url: string;
  status: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | string | null;
  failingSince: Date | string | null;
}

interface ClaimRow extends EndpointRow {
  id: string;
  attempts: number;
  nextAttemptAt: Date | string;
  eventId: string;
  payload: Record<string, unknown>;
  /** read only when tracing is on */
  traceContext?: string | null;
}

/**
 * The claimed deliveries with their endpoints: `claimed` are WITH queries whose last, `c`, has id,
 * attempts, next_attempt_at, endpoint_id, event_id and payload (a data-modifying WITH must be at
 * the top level of its statement). With tracing on, their events' trace contexts too (the claim
 * function returns none); off, the statement reads no more than it did before them.
 */
function withEndpoints(claimed: SQL): SQL {
  const traced = tracingOn();
  return sql`WITH ${claimed}
    SELECT c.id, c.attempts, c.next_attempt_at AS "nextAttemptAt", c.event_id AS "eventId", c.payload,
      e.id AS "endpointId", e.organization_id AS "organizationId", e.url, e.status, e.secret,
      e.previous_secret AS "previousSecret", e.previous_secret_expires_at AS "previousSecretExpiresAt",
      e.failing_since AS "failingSince"${traced ? sql`, ev.trace_context AS "traceContext"` : sql``}
    FROM c JOIN ${webhookEndpoints} e ON e.id = c.endpoint_id${
      traced ? sql` LEFT JOIN ${outboxEvents} ev ON ev.id = c.event_id` : sql``
    }`;
}

const date = (value: Date | string) => (value instanceof Date ? value : new Date(value));
const dateOrNull = (value: Date | string | null) => (value === null ? null : date(value));

const sendingEndpoint = (row: EndpointRow): SendingEndpoint => ({
  id: row.endpointId,
  organizationId: row.organizationId,
  url: row.url,
  status: row.status,
  secret: row.secret,
  previousSecret: row.previousSecret,
  previousSecretExpiresAt: dateOrNull(row.previousSecretExpiresAt),
  failingSince: dateOrNull(row.failingSince),
});

interface TakenEvent {
  seq: number | string;
  /** the row was leased before: its lease ran out, so some of its deliveries may be recorded */
  retaken: boolean;
  /** null when the event is gone */
  id: string | null;
  organizationId: string;
  type: string;
  payload: Record<string, unknown>;
  subjectId: string | null;
  traceContext: string | null;
}

/**
 * Takes up to `limit` events from the outbox queue, oldest first, leasing their rows, and returns
 * a first attempt for each enabled endpoint of the event's organization subscribed to its type;
 * enqueues the followers' jobs (the buyer's confirmation) for every event taken, and deletes the
 * rows of events with no delivery to make. An event taken again after its lease ran out leaves out
 * the endpoints whose deliveries were recorded. An event's attempts come together, even when
 * they are more than `limit`. Each statement on the lazy connection (write, on PGlite).
 */
export async function takeFreshDeliveries(
  ctx: AppContext,
  limit: number,
  followers: readonly OutboxFollower[] = [],
): Promise<ClaimedDelivery[]> {
  const now = ctx.clock.now();
  const at = now.toISOString();
  const taken = await ctx.database.lazyWrite<TakenEvent>(sql`
    WITH c AS (
      SELECT seq, lease_until FROM ${outboxQueue}
      WHERE lease_until IS NULL OR lease_until <= ${at}::timestamptz
      ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED
    ), q AS (
      UPDATE ${outboxQueue} o SET lease_until = ${leaseUntil(ctx, now)}::timestamptz FROM c
      WHERE o.seq = c.seq RETURNING o.seq, o.event_id, c.lease_until IS NOT NULL AS retaken
    )
    SELECT q.seq, q.retaken, e.id, e.organization_id AS "organizationId", e.type, e.payload,
      e.payload->'data'->>'id' AS "subjectId", e.trace_context AS "traceContext"
    FROM q LEFT JOIN ${outboxEvents} e ON e.id = q.event_id ORDER BY q.seq`);
  if (taken.length === 0) return [];
  const events = taken.filter((event) => event.id !== null);
  const organizations = [...new Set(events.map((event) => event.organizationId))];
  const endpoints = organizations.length
    ? await ctx.database.lazyWrite<EndpointRow & { eventTypes: string[] }>(sql`
        SELECT id AS "endpointId", organization_id AS "organizationId", url, status, secret,
          previous_secret AS "previousSecret", previous_secret_expires_at AS "previousSecretExpiresAt",
          failing_since AS "failingSince", event_types AS "eventTypes"
        FROM ${webhookEndpoints}
        WHERE status = 'enabled' AND organization_id = ${anyOf(organizations)}`)
    : [];
  const retaken = events.filter((event) => event.retaken).map((event) => event.id!);
  const recorded = new Set(
    retaken.length
      ? (
          await ctx.database.lazyWrite<{ eventId: string; endpointId: string }>(sql`
            SELECT event_id AS "eventId", endpoint_id AS "endpointId" FROM ${webhookDeliveries}
            WHERE event_id = ${anyOf(retaken)}`)
        ).map((d) => `${d.eventId} ${d.endpointId}`)
      : [],
  );
  // A follower's job continues the event's trace, as its deliveries do.
  const jobs = events.flatMap((event) =>
    followers.map((follow) => {
      const job = follow(
        {
          id: event.id!,
          organizationId: event.organizationId,
          type: event.type,
          subjectId: event.subjectId,
          data: (event.payload.data ?? {}) as Record<string, unknown>,
        },
        now,
      );
      return job && { ...job, traceContext: event.traceContext };
    }),
  );
  const live = jobs.filter((job) => job !== null);
  if (live.length > 0) await ctx.database.lazyWrite(jobsInsert(live));
  const deliveries: ClaimedDelivery[] = [];
  const done: number[] = [];
  for (const event of taken) {
    const seq = Number(event.seq);
    const targets =
      event.id === null
        ? []
        : endpoints.filter(
            (w) =>
              w.organizationId === event.organizationId &&
              w.eventTypes.includes(event.type) &&
              !recorded.has(`${event.id} ${w.endpointId}`),
          );
    if (targets.length === 0) done.push(seq);
    for (const endpoint of targets)
      deliveries.push({
        id: newDeliveryId(),
        owner: '',
        fresh: { seq, organizationId: event.organizationId, type: event.type },
        attempts: 0,
        nextAttemptAt: now,
        endpoint: sendingEndpoint(endpoint),
        event: { id: event.id!, payload: event.payload, traceContext: event.traceContext },
      });
  }
  if (done.length > 0)
    await ctx.database.lazyWrite(sql`DELETE FROM ${outboxQueue} WHERE seq = ${anyOf(done, 'bigint')}`);
  return deliveries;
}

/**
 * Leases up to `limit` deliveries that are pending, due and not leased, oldest due first (after
 * `after`, or only `deliveryId`), and returns those whose endpoint is enabled, in queue order; the
 * others are cancelled. A batch is leased by the database function claim_webhook_deliveries
 * (migration 0014), whose plan never sorts; either way, one statement on a connection of its own
 * (write): on the pipelined reads its commit would hold up the requests' statements queued behind it.
 */
export async function claimDeliveries(
  ctx: AppContext,
  { limit, deliveryId, after }: { limit: number; deliveryId?: string; after?: QueuePlace | null },
): Promise<ClaimedDelivery[]> {
  const now = ctx.clock.now();
  const owner = randomString(16);
  const at = now.toISOString();
  const until = leaseUntil(ctx, now);
  const claimed =
    deliveryId === undefined
      ? sql`c AS (SELECT * FROM claim_webhook_deliveries(${owner}, ${until}::timestamptz,
          ${at}::timestamptz, ${limit}, ${after?.nextAttemptAt.toISOString() ?? '-infinity'}::timestamptz,
          ${after?.id ?? ''}))`
      : sql`leased AS (
            UPDATE ${webhookDeliveries} SET lease_owner = ${owner}, lease_until = ${until}::timestamptz
            WHERE id = ${deliveryId} AND status = 'pending' AND next_attempt_at <= ${at}::timestamptz
              AND (lease_until IS NULL OR lease_until <= ${at}::timestamptz)
            RETURNING id, attempts, next_attempt_at, endpoint_id, event_id),
          c AS (SELECT leased.*, ev.payload FROM leased JOIN ${outboxEvents} ev ON ev.id = leased.event_id)`;
  const rows = await ctx.database.lazyWrite<ClaimRow>(withEndpoints(claimed));
  const disabled = rows.filter((row) => row.status !== 'enabled').map((row) => row.id);
  if (disabled.length > 0) {
    await ctx.database.lazyWrite(
      sql`UPDATE ${webhookDeliveries} SET status = 'cancelled', next_attempt_at = NULL, lease_owner = NULL,
        lease_until = NULL, updated_at = ${at}::timestamptz
      WHERE id IN (${sql.join(
        disabled.map((id) => sql`${id}`),
        sql`, `,
      )}) AND lease_owner = ${owner}`,
    );
    ctx.metrics?.webhookDeliveries.inc({ outcome: 'cancelled' }, disabled.length);
  }
  return rows
    .filter((row) => row.status === 'enabled')
    .map((row) => ({
      id: row.id,
      owner,
      attempts: Number(row.attempts),
      nextAttemptAt: date(row.nextAttemptAt),
      endpoint: sendingEndpoint(row),
      event: { id: row.eventId, payload: row.payload, traceContext: row.traceContext ?? null },
    }))
    .sort(
      (x, y) =>
        x.nextAttemptAt.getTime() - y.nextAttemptAt.getTime() || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0),
    );
}

/**
 * Sends one claimed delivery (over `agents`' kept-alive connections, or a fresh one) and decides
 * what the answer means. Never throws. The attempt's span continues the trace its event was
 * written in (the request or job that paid the order: platform/tracing.ts continueStoredTrace).
 */
export async function sendDelivery(
  ctx: AppContext,
  delivery: ClaimedDelivery,
  agents?: SendAgents,
): Promise<FinishedAttempt> {
  const runtime = ctx.webhooks;
  const { endpoint, event } = delivery;
  const body = webhookBody(event.payload);
  const sentAt = ctx.clock.now();
  const result = await continueStoredTrace(event.traceContext, 'webhook delivery', () =>
    sendWebhook({
      url: endpoint.url,
      headers: webhookHeaders({ id: event.id, at: sentAt, body, secrets: signingSecrets(endpoint, sentAt) }),
      body,
      timeoutMs: runtime.timeoutMs,
      resolve: runtime.resolve,
      policy: runtime.policy,
      ...(agents && { agents }),
    }),
  );
  const done = ctx.clock.now();
  const attempts = delivery.attempts + 1;
  const outcome = decideOutcome({
    status: result.status,
    attempts,
    failingSince: endpoint.failingSince,
    now: done,
    retryAfterMs: parseRetryAfter(result.retryAfter ?? undefined, done),
    scale: runtime.timeScale,
  });
  const error = result.error ?? (outcome.delivery === 'delivered' ? null : `HTTP ${result.status}`);
  ctx.log.debug(
    {
      delivery_id: delivery.id,
      webhook_id: event.id,
      endpoint_id: endpoint.id,
      attempt: attempts,
      status: result.status,
      latency_ms: result.latencyMs,
      outcome: outcome.delivery,
      ...(error && { error }),
    },
    'webhook attempt',
  );
  return { delivery, result, outcome, error, sentAt, done };
}

/**
 * One attempt now at one delivery, if it is pending and due, over a fresh connection (the
 * organizer app's "send now"); the retry schedule carries on from its outcome.
 */
export async function attemptDelivery(ctx: AppContext, deliveryId: string): Promise<void> {
  const [claimed] = await claimDeliveries(ctx, { limit: 1, deliveryId });
  if (claimed) await recordAttempts(ctx, [await sendDelivery(ctx, claimed)]);
}
