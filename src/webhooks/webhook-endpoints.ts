// Webhook endpoints: an organization's receivers. Create (the secret is shown once), read, change
// URL and event types, disable and enable, rotate the secret (the old one keeps signing for 24 h),
// delete. Write functions take the transaction explicitly.
import { and, asc, eq, sql } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import { newId, Timestamp, type Executor } from '../platform/index.ts';
import { checkWebhookUrl } from './address-policy.ts';
import { SECRET_OVERLAP_MS } from './delivery-schedule.ts';
import { resolveAllowed } from './send-webhook.ts';
import { newWebhookSecret } from './sign-webhook.ts';
import type { WebhookRuntime } from './webhook-runtime.ts';
import { webhookDeliveries, webhookEndpoints } from './webhooks.schema.ts';

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

/** Event types an endpoint can subscribe to. */
export const WEBHOOK_EVENT_TYPES = ['order.paid', 'order.refunded'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Sent on demand through the admin API, whatever the endpoint subscribes to. */
export const TEST_EVENT_TYPE = 'test';

export type DisabledReason = 'manual' | 'gone' | 'failing';

/** An endpoint on the wire; never carries a secret. */
export const WebhookEndpointOut = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  status: Type.Enum(['enabled', 'disabled']),
  disabled_reason: Type.Union([Type.Enum(['manual', 'gone', 'failing']), Type.Null()], {
    description:
      'manual: disabled through the API; gone: the receiver answered 410; failing: every attempt failed for 5 days',
  }),
  disabled_at: Type.Union([Timestamp, Type.Null()]),
  failing_since: Type.Union([Timestamp, Type.Null()]),
  secret_rotated_at: Type.Union([Timestamp, Type.Null()]),
  previous_secret_expires_at: Type.Union([Timestamp, Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type WebhookEndpointOut = Static<typeof WebhookEndpointOut>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Never carries a secret. */
export function toWebhookEndpointOut(row: WebhookEndpointRow, now: Date): WebhookEndpointOut {
  const overlap =
    row.previousSecretExpiresAt && row.previousSecretExpiresAt > now ? row.previousSecretExpiresAt : null;
  return {
    id: row.id,
    organization_id: row.organizationId,
    url: row.url,
    events: row.eventTypes,
    status: row.status as WebhookEndpointOut['status'],
    disabled_reason: row.disabledReason as DisabledReason | null,
    disabled_at: iso(row.disabledAt),
    failing_since: iso(row.failingSince),
    secret_rotated_at: iso(row.secretRotatedAt),
    previous_secret_expires_at: iso(overlap),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The secrets that sign now: the current one, and the previous one during its 24 h overlap. */
export function signingSecrets(
  row: Pick<WebhookEndpointRow, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
  now: Date,
): string[] {
  const previous =
    row.previousSecret && row.previousSecretExpiresAt && row.previousSecretExpiresAt > now
      ? [row.previousSecret]
      : [];
  return [row.secret, ...previous];
}

export type EndpointUrlCheck = { ok: true; url: string } | { ok: false; message: string };

/**
 * The URL rules, then the host name resolved and every address checked (outside development,
 * only public addresses). Deliveries check again at each send, after resolution.
 */
export async function checkEndpointUrl(runtime: WebhookRuntime, raw: string): Promise<EndpointUrlCheck> {
  const checked = checkWebhookUrl(raw, runtime.policy);
  if (!checked.ok) return checked;
  try {
    await resolveAllowed(checked.url.hostname, runtime.resolve, runtime.policy);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'EADDRNOTALLOWED')
      return { ok: false, message: `must not point at a private address: ${e.message}` };
    return { ok: false, message: `must name a host that resolves (${checked.url.hostname} does not)` };
  }
  return { ok: true, url: checked.url.toString() };
}

export async function insertWebhookEndpoint(
  db: Executor,
  input: { organizationId: string; url: string; eventTypes: string[]; now: Date },
): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  const secret = newWebhookSecret();
  const [endpoint] = await db
    .insert(webhookEndpoints)
    .values({
      id: newId('whe'),
      organizationId: input.organizationId,
      url: input.url,
      eventTypes: input.eventTypes,
      status: 'enabled',
      secret,
      createdAt: input.now,
      updatedAt: input.now,
    })
    .returning();
  return { endpoint: endpoint!, secret };
}

/**
 * Holds the organization's endpoint list until the transaction ends, so that two registrations
 * of the same URL at once cannot both find it free.
 */
export async function lockEndpointList(tx: Executor, organizationId: string): Promise<void> {
  await tx.execute(
    sql`SELECT pg_advisory_xact_lock(hashtextextended(${`webhook_endpoints:${organizationId}`}, 0))`,
  );
}

/** The organization's endpoint at `url` (as stored), other than `exceptId`. */
export async function endpointAt(
  db: Executor,
  organizationId: string,
  url: string,
  exceptId?: string,
): Promise<WebhookEndpointRow | undefined> {
  const rows = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.organizationId, organizationId), eq(webhookEndpoints.url, url)));
  return rows.find((row) => row.id !== exceptId);
}

export async function findWebhookEndpoint(db: Executor, id: string): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  return row;
}

export async function listWebhookEndpoints(
  db: Executor,
  organizationId: string,
): Promise<WebhookEndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.organizationId, organizationId))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
}

export async function patchWebhookEndpoint(
  db: Executor,
  id: string,
  input: { url?: string | undefined; eventTypes?: string[] | undefined },
  now: Date,
): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({
      ...(input.url !== undefined && { url: input.url }),
      ...(input.eventTypes !== undefined && { eventTypes: input.eventTypes }),
      updatedAt: now,
    })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  return row;
}

/** Pending deliveries of a disabled endpoint stop; an operator can retry them after enabling. */
async function cancelPendingDeliveries(db: Executor, endpointId: string, now: Date): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ status: 'cancelled', nextAttemptAt: null, updatedAt: now })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, 'pending')));
}

/** Disables an endpoint and cancels its pending deliveries; an endpoint already disabled keeps its reason. */
export async function disableWebhookEndpoint(
  db: Executor,
  id: string,
  reason: DisabledReason,
  now: Date,
): Promise<WebhookEndpointRow | undefined> {
  await db
    .update(webhookEndpoints)
    .set({ status: 'disabled', disabledReason: reason, disabledAt: now, updatedAt: now })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.status, 'enabled')));
  await cancelPendingDeliveries(db, id, now);
  return findWebhookEndpoint(db, id);
}

/** Enables a disabled endpoint with a clean slate: no failure streak carried over. */
export async function enableWebhookEndpoint(
  db: Executor,
  id: string,
  now: Date,
): Promise<WebhookEndpointRow | undefined> {
  await db
    .update(webhookEndpoints)
    .set({ status: 'enabled', disabledReason: null, disabledAt: null, failingSince: null, updatedAt: now })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.status, 'disabled')));
  return findWebhookEndpoint(db, id);
}

/**
 * A new secret; the current one becomes the previous and keeps signing for 24 hours, so a receiver
 * can switch without losing a delivery. A second rotation inside the 24 hours drops the oldest.
 */
export async function replaceWebhookSecret(
  db: Executor,
  id: string,
  now: Date,
): Promise<{ endpoint: WebhookEndpointRow; secret: string } | undefined> {
  const secret = newWebhookSecret();
  const [endpoint] = await db
    .update(webhookEndpoints)
    .set({
      previousSecret: sql`${webhookEndpoints.secret}`,
      previousSecretExpiresAt: new Date(now.getTime() + SECRET_OVERLAP_MS),
      secret,
      secretRotatedAt: now,
      updatedAt: now,
    })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  return endpoint ? { endpoint, secret } : undefined;
}

/** Deletes an endpoint with its deliveries and their attempts. */
export async function removeWebhookEndpoint(db: Executor, id: string): Promise<boolean> {
  const rows = await db
    .delete(webhookEndpoints)
    .where(eq(webhookEndpoints.id, id))
    .returning({ id: webhookEndpoints.id });
  return rows.length > 0;
}

/** Event types as given, checked and without duplicates; returns the problems by index. */
export function checkEventTypes(types: string[]): {
  types: string[];
  problems: { index: number; value: string }[];
} {
  const known = WEBHOOK_EVENT_TYPES as readonly string[];
  const problems = types.flatMap((value, index) => (known.includes(value) ? [] : [{ index, value }]));
  return { types: [...new Set(types)], problems };
}
