// Recording attempts, many at a time: the outcomes of a batch written in one statement (two when
// it holds first attempts and retries), endpoints' failure streaks, the queue rows of events whose
// first attempts are all written, and the endpoints an answer condemned disabled.
import { sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import type { WebhookOutcome } from '../metrics/index.ts';
import { retryWhileUnreachable } from '../platform/index.ts';
import type { FinishedAttempt } from './deliver-webhook.ts';
import type { AttemptOutcome } from './delivery-schedule.ts';
import { disableWebhookEndpoint } from './webhook-endpoints.ts';
import { outboxQueue, webhookDeliveries } from './webhooks.schema.ts';

/** An attempt's outcome as the metric names it: a pending delivery was a failed attempt. */
const METRIC_OUTCOME: Record<AttemptOutcome['delivery'], WebhookOutcome> = {
  delivered: 'delivered',
  pending: 'failed_attempt',
  failed: 'failed',
};

/**
 * A list (ids, or queue seqs as bigint) as one JSON parameter made an array before the scan: read
 * by key whatever the planner's statistics say, which are stale during a backlog.
 */
export const anyOf = (values: readonly string[] | readonly number[], type: 'text' | 'bigint' = 'text') =>
  sql`ANY(ARRAY(SELECT json_array_elements_text(${JSON.stringify(values)}::json)::${sql.raw(type)}))`;

/**
 * Records finished attempts: in one statement for the batch (two when it holds first attempts and
 * later ones), or, if that fails (say a delivery's endpoint deleted while it was sent), one by one,
 * so that one bad row costs no other its record. `released`: the queue rows of the events whose
 * first attempts are all in this batch or recorded before, deleted with the batch's record; one by
 * one, none is, and they are taken again when their leases run out.
 * Then disables the endpoints an answer condemned. Never throws: an attempt left unrecorded is
 * sent again when its lease runs out (at least once). Returns the attempts left unrecorded.
 */
export async function recordAttempts(
  ctx: AppContext,
  finished: FinishedAttempt[],
  released: readonly number[] = [],
): Promise<FinishedAttempt[]> {
  if (finished.length === 0) return [];
  // Both statements may run twice (a retry after a lost connection, whose first try may have
  // committed): a retry writes nothing the first wrote. An attempt left unrecorded would be sent
  // again when its lease runs out, a duplicate the receiver sees.
  const write = (batch: FinishedAttempt[], release: readonly number[]) =>
    retryWhileUnreachable(() =>
      Promise.all([
        writeRecords(
          ctx,
          batch.filter((one) => !one.delivery.fresh),
        ),
        writeFresh(
          ctx,
          batch.filter((one) => one.delivery.fresh),
          release,
        ),
      ]),
    );
  const recorded = await write(finished, released).then(
    () => finished,
    async (error: unknown) => {
      if (finished.length === 1) {
        ctx.log.warn({ err: error, delivery_id: finished[0]!.delivery.id }, 'webhook attempt not recorded');
        return [];
      }
      const alone = await Promise.all(
        finished.map((one) =>
          write([one], []).then(
            () => [one],
            (err: unknown) => {
              ctx.log.warn({ err, delivery_id: one.delivery.id }, 'webhook attempt not recorded');
              return [];
            },
          ),
        ),
      );
      return alone.flat();
    },
  );
  const metrics = ctx.metrics;
  for (const one of recorded)
    metrics?.webhookDeliveries.inc({ outcome: METRIC_OUTCOME[one.outcome.delivery] });
  await disableCondemned(
    ctx,
    recorded.filter(
      (one) => one.outcome.endpoint === 'disable_gone' || one.outcome.endpoint === 'disable_failing',
    ),
  );
  return finished.filter((one) => !recorded.includes(one));
}

/** An attempt's outcome as a record statement's JSON row reads it. */
function outcomeRow({ result, outcome, error, sentAt, done }: FinishedAttempt) {
  return {
    status: outcome.delivery,
    next_attempt_at: outcome.nextAttemptAt?.toISOString() ?? null,
    sent_at: sentAt.toISOString(),
    done_at: done.toISOString(),
    http_status: result.status,
    latency_ms: result.latencyMs,
    error,
    excerpt: result.excerpt,
  };
}

/** The record statement: the attempts, the deliveries still leased by their claims, endpoint health. */
async function writeRecords(ctx: AppContext, finished: FinishedAttempt[]): Promise<void> {
  if (finished.length === 0) return;
  const rows = finished.map((one) => ({
    id: one.delivery.id,
    owner: one.delivery.owner,
    ...outcomeRow(one),
  }));
  // Attempts are written only for deliveries that still exist (a deleted endpoint takes its
  // deliveries), and endpoints only when their failure streak changes. `d.id = ANY(ids)` repeats
  // the join for the planner, which cannot count json_to_recordset's rows: without it, it read
  // the whole table once per batch.
  const ids = sql`ARRAY[${sql.join(
    finished.map((one) => sql`${one.delivery.id}`),
    sql`, `,
  )}]::text[]`;
  await ctx.database.lazyWrite(sql`
    WITH r AS (
      SELECT * FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(
        id text, owner text, status text, next_attempt_at timestamptz, sent_at timestamptz,
        done_at timestamptz, http_status integer, latency_ms integer, error text, excerpt text)
    ), attempts AS (
      INSERT INTO webhook_attempts (delivery_id, attempted_at, status, latency_ms, error, response_excerpt)
      SELECT r.id, r.sent_at, r.http_status, r.latency_ms, r.error, r.excerpt
      FROM r JOIN webhook_deliveries d ON d.id = r.id AND d.id = ANY(${ids}) AND d.lease_owner = r.owner
    ), health AS (${healthUpdate(finished)})
    UPDATE webhook_deliveries d SET
      status = r.status, attempts = d.attempts + 1, next_attempt_at = r.next_attempt_at,
      last_attempt_at = r.sent_at, last_status = r.http_status, last_error = r.error,
      delivered_at = CASE WHEN r.status = 'delivered' THEN r.done_at ELSE d.delivered_at END,
      lease_owner = NULL, lease_until = NULL, updated_at = r.done_at
    FROM r WHERE d.id = r.id AND d.id = ANY(${ids}) AND d.lease_owner = r.owner`);
}

/**
 * The record of first attempts: each delivery's row written once, with its outcome, its attempt,
 * endpoint health, and the released queue rows deleted. A delivery an earlier release made
 * meanwhile keeps its row (ON CONFLICT): this attempt goes unrecorded and that one is sent.
 */
async function writeFresh(
  ctx: AppContext,
  finished: FinishedAttempt[],
  released: readonly number[],
): Promise<void> {
  if (finished.length === 0) return;
  const rows = finished.map((one) => ({
    id: one.delivery.id,
    endpoint_id: one.delivery.endpoint.id,
    organization_id: one.delivery.fresh!.organizationId,
    event_id: one.delivery.event.id,
    event_type: one.delivery.fresh!.type,
    ...outcomeRow(one),
  }));
  await ctx.database.lazyWrite(sql`
    WITH r AS (
      SELECT * FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(
        id text, endpoint_id text, organization_id text, event_id text, event_type text, status text,
        next_attempt_at timestamptz, sent_at timestamptz, done_at timestamptz, http_status integer,
        latency_ms integer, error text, excerpt text)
    ), made AS (
      INSERT INTO ${webhookDeliveries} (id, endpoint_id, organization_id, event_id, event_type, status,
        attempts, next_attempt_at, last_attempt_at, last_status, last_error, delivered_at, created_at,
        updated_at)
      SELECT r.id, r.endpoint_id, r.organization_id, r.event_id, r.event_type, r.status, 1,
        r.next_attempt_at, r.sent_at, r.http_status, r.error,
        CASE WHEN r.status = 'delivered' THEN r.done_at END, r.sent_at, r.done_at
      FROM r ON CONFLICT (event_id, endpoint_id) DO NOTHING RETURNING id
    ), attempts AS (
      INSERT INTO webhook_attempts (delivery_id, attempted_at, status, latency_ms, error, response_excerpt)
      SELECT r.id, r.sent_at, r.http_status, r.latency_ms, r.error, r.excerpt FROM r JOIN made ON made.id = r.id
    ), health AS (${healthUpdate(finished)})
    DELETE FROM ${outboxQueue} WHERE seq = ${anyOf(released, 'bigint')}`);
}

/** The endpoints whose failure streak a batch changed, as an UPDATE for a WITH query. */
function healthUpdate(finished: readonly FinishedAttempt[]): SQL {
  return sql`
    UPDATE webhook_endpoints e
    SET failing_since = CASE WHEN h.reset THEN h.since ELSE coalesce(e.failing_since, h.since) END
    FROM json_to_recordset(${JSON.stringify(healthOf(finished))}::json) AS h(id text, reset boolean, since timestamptz)
    WHERE e.id = h.id
      AND e.failing_since IS DISTINCT FROM (CASE WHEN h.reset THEN h.since ELSE coalesce(e.failing_since, h.since) END)`;
}

/**
 * Each endpoint's failure streak after a batch, in the order its attempts finished: a success
 * ends the streak (reset), and the failures after the last success start one at the first of
 * them; with no success, failures start one unless one is running. Disabling is apart.
 */
export function healthOf(
  finished: readonly FinishedAttempt[],
): Array<{ id: string; reset: boolean; since: string | null }> {
  const byEndpoint = new Map<string, FinishedAttempt[]>();
  for (const one of finished) {
    if (one.outcome.endpoint !== 'healthy' && one.outcome.endpoint !== 'failing') continue;
    const id = one.delivery.endpoint.id;
    const list = byEndpoint.get(id) ?? [];
    list.push(one);
    byEndpoint.set(id, list);
  }
  return [...byEndpoint].map(([id, list]) => {
    const lastSuccess = list.findLastIndex((one) => one.outcome.endpoint === 'healthy');
    const failures = list.slice(lastSuccess + 1);
    const first = failures.length ? Math.min(...failures.map((one) => one.sentAt.getTime())) : null;
    return { id, reset: lastSuccess >= 0, since: first === null ? null : new Date(first).toISOString() };
  });
}

/** Disables each endpoint an answer condemned (410 Gone, or five days of failures), and says so. */
async function disableCondemned(ctx: AppContext, condemned: FinishedAttempt[]): Promise<void> {
  const seen = new Set<string>();
  for (const { delivery, outcome, result, done } of condemned) {
    const { endpoint } = delivery;
    if (seen.has(endpoint.id)) continue;
    seen.add(endpoint.id);
    const reason = outcome.endpoint === 'disable_gone' ? 'gone' : 'failing';
    try {
      await ctx.database.transaction((tx) => disableWebhookEndpoint(tx, endpoint.id, reason, done));
    } catch (err) {
      ctx.log.error({ err, endpoint_id: endpoint.id }, 'webhook endpoint not disabled');
      continue;
    }
    // The organization is told through the endpoint's status and disabled_reason in the admin API
    // (and the organizer app that reads it), and operators through this line.
    ctx.log.warn(
      {
        organization_id: endpoint.organizationId,
        endpoint_id: endpoint.id,
        url: endpoint.url,
        reason,
        failing_since: endpoint.failingSince?.toISOString() ?? null,
        last_status: result.status,
      },
      reason === 'gone'
        ? 'webhook endpoint disabled: the receiver answered 410 Gone'
        : 'webhook endpoint disabled: failing for 5 days without a success',
    );
  }
}
