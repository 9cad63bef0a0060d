// One attempt at one delivery: claim, send, record. The claim is a lease on the delivery row, taken
// only while it is pending and due, so two workers (or two processes) never send the same delivery
// at once, and a delivered one is never sent again by the schedule. The send happens with no
// transaction open; the attempt, the delivery's new state and the endpoint's health are then
// written together.
import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { metricsOf, type WebhookOutcome } from '../metrics/metrics.ts';
import type { Tx } from '../platform/db.ts';
import { randomString } from '../platform/ids.ts';
import {
  decideOutcome,
  parseRetryAfter,
  type AttemptOutcome,
  type EndpointEffect,
} from './delivery-schedule.ts';
import { sendWebhook, type SendOutcome } from './send-webhook.ts';
import { webhookHeaders } from './sign-webhook.ts';
import { disableWebhookEndpoint, signingSecrets } from './webhook-endpoints.ts';
import { webhookRuntime } from './webhook-runtime.ts';
import { outboxEvents, webhookAttempts, webhookDeliveries, webhookEndpoints } from './webhooks.schema.ts';

/** Time allowed between claiming a delivery and recording its attempt, beyond the send deadline. */
const LEASE_MARGIN_MS = 30_000;

/** The body as sent: the outbox payload with its three fields in the documented order. */
export function webhookBody(payload: Record<string, unknown>): string {
  return JSON.stringify({ type: payload.type, timestamp: payload.timestamp, data: payload.data });
}

/** An attempt's outcome as the metric names it: a pending delivery was a failed attempt. */
const METRIC_OUTCOME: Record<AttemptOutcome['delivery'], WebhookOutcome> = {
  delivered: 'delivered',
  pending: 'failed_attempt',
  failed: 'failed',
};

type DeliveryRow = typeof webhookDeliveries.$inferSelect;
type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** The delivery while this attempt still holds its lease. */
function leasedBy(deliveryId: string, owner: string) {
  return and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.leaseOwner, owner));
}

/**
 * Makes one attempt if the delivery is pending and due. Returns when to look at it again (its
 * next attempt, or the end of someone else's lease), or null when there is nothing more to do.
 */
export async function attemptDelivery(ctx: AppContext, deliveryId: string): Promise<Date | null> {
  const db = ctx.database.db;
  const runtime = webhookRuntime(ctx);
  const owner = randomString(16);
  const now = ctx.clock.now();
  const claimed = await claimDelivery(ctx, {
    deliveryId,
    owner,
    now,
    leaseMs: runtime.timeoutMs + LEASE_MARGIN_MS,
  });
  if (!claimed) return lookAgainAt(ctx, deliveryId, now);
  const mine = leasedBy(deliveryId, owner);

  const [target] = await db
    .select({ endpoint: webhookEndpoints, event: outboxEvents })
    .from(webhookEndpoints)
    .innerJoin(outboxEvents, eq(outboxEvents.id, claimed.eventId))
    .where(eq(webhookEndpoints.id, claimed.endpointId));
  if (!target || target.endpoint.status !== 'enabled') {
    await db
      .update(webhookDeliveries)
      .set({ status: 'cancelled', nextAttemptAt: null, leaseOwner: null, leaseUntil: null, updatedAt: now })
      .where(mine);
    metricsOf(ctx)?.webhookDeliveries.inc({ outcome: 'cancelled' });
    return null;
  }
  const { endpoint, event } = target;

  const body = webhookBody(event.payload);
  const sentAt = ctx.clock.now();
  const result = await sendWebhook({
    url: endpoint.url,
    headers: webhookHeaders({ id: event.id, at: sentAt, body, secrets: signingSecrets(endpoint, sentAt) }),
    body,
    timeoutMs: runtime.timeoutMs,
    resolve: runtime.resolve,
    policy: runtime.policy,
  });
  const done = ctx.clock.now();
  const attempts = claimed.attempts + 1;
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
      delivery_id: deliveryId,
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

  await ctx.database.transaction((tx) =>
    recordAttempt(ctx, tx, { deliveryId, owner, endpoint, result, outcome, error, sentAt, done }),
  );
  metricsOf(ctx)?.webhookDeliveries.inc({ outcome: METRIC_OUTCOME[outcome.delivery] });
  return outcome.delivery === 'pending' ? outcome.nextAttemptAt : null;
}

interface AttemptRecord {
  deliveryId: string;
  /** the lease owner: only a delivery still leased by this attempt is updated */
  owner: string;
  endpoint: EndpointRow;
  result: SendOutcome;
  outcome: AttemptOutcome;
  error: string | null;
  sentAt: Date;
  done: Date;
}

/** Writes the attempt, the delivery's new state and the endpoint's health together. */
async function recordAttempt(
  ctx: AppContext,
  tx: Tx,
  { deliveryId, owner, endpoint, result, outcome, error, sentAt, done }: AttemptRecord,
): Promise<void> {
  await tx.insert(webhookAttempts).values({
    deliveryId,
    attemptedAt: sentAt,
    status: result.status,
    latencyMs: result.latencyMs,
    error,
    responseExcerpt: result.excerpt,
  });
  await tx
    .update(webhookDeliveries)
    .set({
      status: outcome.delivery,
      attempts: sql`${webhookDeliveries.attempts} + 1`,
      nextAttemptAt: outcome.nextAttemptAt,
      lastAttemptAt: sentAt,
      lastStatus: result.status,
      lastError: error,
      ...(outcome.delivery === 'delivered' && { deliveredAt: done }),
      leaseOwner: null,
      leaseUntil: null,
      updatedAt: done,
    })
    .where(leasedBy(deliveryId, owner));
  await recordEndpointHealth(ctx, tx, {
    endpoint,
    effect: outcome.endpoint,
    status: result.status,
    sentAt,
    done,
  });
}

/**
 * Takes the lease on the delivery if it is pending, due and not leased; undefined otherwise. On a
 * connection of its own (write): on the pipelined reads its commit's WAL flush held up the
 * requests' statements queued behind it, and a backlog's sends made checkout creation slower.
 */
async function claimDelivery(
  ctx: AppContext,
  { deliveryId, owner, now, leaseMs }: { deliveryId: string; owner: string; now: Date; leaseMs: number },
): Promise<Pick<DeliveryRow, 'eventId' | 'endpointId' | 'attempts'> | undefined> {
  const at = now.toISOString();
  const until = new Date(now.getTime() + leaseMs).toISOString();
  const [claimed] = await ctx.database.write<{ eventId: string; endpointId: string; attempts: number }>(sql`
    UPDATE ${webhookDeliveries} SET lease_owner = ${owner}, lease_until = ${until}::timestamptz
    WHERE id = ${deliveryId} AND status = 'pending'
      AND (next_attempt_at IS NULL OR next_attempt_at <= ${at}::timestamptz)
      AND (lease_until IS NULL OR lease_until <= ${at}::timestamptz)
    RETURNING event_id AS "eventId", endpoint_id AS "endpointId", attempts`);
  return claimed && { ...claimed, attempts: Number(claimed.attempts) };
}

/** A delivery not claimed: when to look again, or null when it is no longer pending. */
async function lookAgainAt(ctx: AppContext, deliveryId: string, now: Date): Promise<Date | null> {
  const [row] = await ctx.database.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.id, deliveryId));
  if (!row || row.status !== 'pending') return null;
  // Someone else is sending it, or it is not due yet: look again then.
  const later = [row.leaseUntil, row.nextAttemptAt].filter((d): d is Date => d !== null && d > now);
  return later.length > 0 ? new Date(Math.max(...later.map((d) => d.getTime()))) : now;
}

interface EndpointHealth {
  endpoint: EndpointRow;
  effect: EndpointEffect;
  /** the attempt's HTTP status (null: no answer), for the log line of a disabled endpoint */
  status: number | null;
  sentAt: Date;
  done: Date;
}

/** What the attempt says of the endpoint's health: healthy again, failing since, or disabled. */
async function recordEndpointHealth(
  ctx: AppContext,
  tx: Tx,
  { endpoint, effect, status, sentAt, done }: EndpointHealth,
): Promise<void> {
  switch (effect) {
    case 'healthy':
      await tx
        .update(webhookEndpoints)
        .set({ failingSince: null })
        .where(and(eq(webhookEndpoints.id, endpoint.id), sql`${webhookEndpoints.failingSince} IS NOT NULL`));
      break;
    case 'failing':
      await tx
        .update(webhookEndpoints)
        .set({
          failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${sentAt.toISOString()}::timestamptz)`,
        })
        .where(eq(webhookEndpoints.id, endpoint.id));
      break;
    case 'disable_gone':
    case 'disable_failing': {
      const reason = effect === 'disable_gone' ? 'gone' : 'failing';
      await disableWebhookEndpoint(tx, endpoint.id, reason, done);
      // The organization is told through the endpoint's status and disabled_reason in the admin
      // API (and the organizer app that reads it), and operators through this line.
      ctx.log.warn(
        {
          organization_id: endpoint.organizationId,
          endpoint_id: endpoint.id,
          url: endpoint.url,
          reason,
          failing_since: endpoint.failingSince?.toISOString() ?? null,
          last_status: status,
        },
        reason === 'gone'
          ? 'webhook endpoint disabled: the receiver answered 410 Gone'
          : 'webhook endpoint disabled: failing for 5 days without a success',
      );
      break;
    }
  }
}
