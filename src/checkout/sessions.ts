// Checkout sessions: creation with every rule of SPEC.md section 4, and the read shape of DESIGN.md.
import { and, desc, eq } from 'drizzle-orm';
import type { PartnerAuth } from '../auth/authenticate.ts';
import { parseOrigin } from '../auth/origins.ts';
import type { AppContext } from '../context.ts';
import { isRegistrationOpen, type SessionEvent } from '../events/events.ts';
import { isEmail, normalizePhone } from '../orders/contact.ts';
import { orders } from '../orders/orders.schema.ts';
import type { Executor } from '../platform/db.ts';
import type { PlannedWrite } from '../platform/idempotency.ts';
import { ApiError, notFound, validationError, type FieldError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { checkoutSessions, type Prefill } from './checkout.schema.ts';
import {
  collect,
  embedOriginProblem,
  returnUrlProblem,
  storedReturnUrl,
  successUrlFor,
} from './return-urls.ts';

export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect;

export const SESSION_LIFETIME_MS = 24 * 3600 * 1000;
export const MAX_CLIENT_REFERENCE_LENGTH = 256;

export interface CreateSessionInput {
  event_id: string;
  ui_mode?: 'redirect' | 'embedded';
  on_success_url?: string;
  on_cancel_url?: string;
  embed_origin?: string;
  client_reference_id?: string;
  prefill?: Prefill;
}

export interface CheckoutSessionCreatedOut {
  id: string;
  url: string;
  expires_at: string;
  ui_mode: string;
}

/** Field rules that need no database: every problem at once, as validation_failed. */
function checkFields(
  auth: PartnerAuth,
  input: CreateSessionInput,
): { errors: FieldError[]; embedOrigin: string | null } {
  const errors: FieldError[] = [];
  const uiMode = input.ui_mode ?? 'redirect';
  for (const field of ['on_success_url', 'on_cancel_url'] as const) {
    const value = input[field];
    if (value === undefined) {
      if (uiMode === 'redirect') errors.push({ field, message: 'is required for redirect sessions' });
    } else {
      collect(errors, field, returnUrlProblem(value, auth.returnUrlDomains));
    }
  }
  let embedOrigin: string | null = null;
  if (uiMode === 'embedded') {
    if (auth.kind === 'publishable') {
      // The page calling with the key is the page that will host the modal; body embed_origin is ignored.
      embedOrigin = auth.origin;
    } else if (input.embed_origin === undefined) {
      errors.push({
        field: 'embed_origin',
        message: 'is required for embedded sessions created with a bearer token',
      });
    } else {
      const problem = embedOriginProblem(input.embed_origin);
      collect(errors, 'embed_origin', problem);
      if (!problem) embedOrigin = parseOrigin(input.embed_origin);
    }
  }
  if (input.client_reference_id !== undefined) {
    if (input.client_reference_id.length > MAX_CLIENT_REFERENCE_LENGTH) {
      errors.push({
        field: 'client_reference_id',
        message: `must be at most ${MAX_CLIENT_REFERENCE_LENGTH} characters`,
      });
    } else if (input.client_reference_id.length === 0) {
      errors.push({
        field: 'client_reference_id',
        message: 'must not be empty; leave the field out instead',
      });
    }
  }
  const prefill = input.prefill ?? {};
  if (prefill.buyer_email !== undefined && !isEmail(prefill.buyer_email)) {
    errors.push({ field: 'prefill.buyer_email', message: 'must be an e-mail address' });
  }
  if (prefill.buyer_phone !== undefined && normalizePhone(prefill.buyer_phone) === null) {
    errors.push({
      field: 'prefill.buyer_phone',
      message: 'must be a Ugandan mobile number such as 0772 123456 or +256 772 123456',
    });
  }
  if (prefill.buyer_name !== undefined && prefill.buyer_name.trim().length === 0) {
    errors.push({ field: 'prefill.buyer_name', message: 'must not be blank' });
  }
  return { errors, embedOrigin };
}

/**
 * Plans a session: every rule checked (a refusal is thrown), the answer built from the values to
 * be written, and the row that holds them (PlannedWrite). Nothing is read: the event was looked
 * up before.
 */
export function planCheckoutSession(
  ctx: AppContext,
  auth: PartnerAuth,
  input: CreateSessionInput,
  /** the event as readSessionEvent reads it, kept to the caller's organization */
  found: SessionEvent | undefined,
): PlannedWrite<CheckoutSessionCreatedOut> {
  const { errors, embedOrigin } = checkFields(auth, input);
  if (errors.length > 0) throw validationError(errors);
  if (embedOrigin !== null && !auth.allowedDomains.includes(embedOrigin)) {
    throw new ApiError(
      'invalid_embed_origin',
      `embed_origin ${embedOrigin} is not one of this client's allowed domains.`,
    );
  }
  const now = ctx.clock.now();
  if (!found || found.event.id !== input.event_id) throw notFound('event');
  if (!isRegistrationOpen(found.event, now)) {
    throw new ApiError('sale_closed', 'Registration for this event is not open.');
  }
  if (!found.organization.paymentsEnabled && found.hasPaidTickets) {
    throw new ApiError('payments_disabled', 'This organization cannot take payments yet.');
  }
  const id = newId('cs');
  const uiMode = input.ui_mode ?? 'redirect';
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  // Stored percent-encoded (storedReturnUrl), so that every redirect to them is ASCII.
  const successUrl =
    input.on_success_url === undefined ? null : storedReturnUrl(successUrlFor(input.on_success_url, id));
  return {
    status: 201,
    body: { id, url: checkoutUrl(ctx, id), expires_at: expiresAt.toISOString(), ui_mode: uiMode },
    // status and completed_at take their defaults
    table: checkoutSessions,
    row: {
      id,
      organization_id: auth.organizationId,
      api_client_id: auth.clientId,
      event_id: found.event.id,
      ui_mode: uiMode,
      created_with: auth.kind,
      embed_origin: embedOrigin,
      success_url: successUrl,
      cancel_url: input.on_cancel_url === undefined ? null : storedReturnUrl(input.on_cancel_url),
      client_reference_id: input.client_reference_id ?? null,
      prefill: input.prefill ?? {},
      expires_at: expiresAt.toISOString(),
      created_at: now.toISOString(),
    },
  };
}

export function checkoutUrl(ctx: AppContext, sessionId: string): string {
  return new URL(`/checkout/${sessionId}`, ctx.config.siteUrl).toString();
}

/** open | complete | expired, kept true by time: a 24-hour-old session reads expired at once. */
export function sessionStatus(row: Pick<CheckoutSessionRow, 'status' | 'expiresAt'>, now: Date): string {
  if (row.status === 'complete') return 'complete';
  if (row.status === 'expired' || row.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'open';
}

export interface CheckoutSessionOut {
  id: string;
  status: string;
  ui_mode: string;
  url: string;
  expires_at: string;
  created_at: string;
  event_id: string;
  client_reference_id: string | null;
  embed_origin: string | null;
  on_success_url: string | null;
  on_cancel_url: string | null;
  order: { id: string; status: string; code: string } | null;
}

/** What a Location header cannot carry as it is. */
const UNPRINTABLE = /[^\u0020-\u007e]/;

/**
 * A session written before return URLs were stored percent-encoded may hold them as the partner
 * sent them, non-ASCII included; it is read in the stored form, so that its redirects are ASCII too.
 */
function withStoredReturnUrls(row: CheckoutSessionRow | undefined): CheckoutSessionRow | undefined {
  if (!row || !(UNPRINTABLE.test(row.successUrl ?? '') || UNPRINTABLE.test(row.cancelUrl ?? ''))) return row;
  const stored = (url: string | null) => (url !== null && UNPRINTABLE.test(url) ? storedReturnUrl(url) : url);
  return { ...row, successUrl: stored(row.successUrl), cancelUrl: stored(row.cancelUrl) };
}

export async function findCheckoutSession(
  db: Executor,
  organizationId: string,
  sessionId: string,
): Promise<CheckoutSessionRow | undefined> {
  const [row] = await db
    .select()
    .from(checkoutSessions)
    .where(and(eq(checkoutSessions.id, sessionId), eq(checkoutSessions.organizationId, organizationId)));
  return withStoredReturnUrls(row);
}

/**
 * A session by id alone, for the hosted checkout page: the buyer is anonymous, and the
 * unguessable session id is the capability that opens the page.
 */
export async function findCheckoutSessionById(
  db: Executor,
  sessionId: string,
): Promise<CheckoutSessionRow | undefined> {
  if (!/^cs_[A-Za-z0-9]{16,64}$/.test(sessionId)) return undefined;
  const [row] = await db.select().from(checkoutSessions).where(eq(checkoutSessions.id, sessionId));
  return withStoredReturnUrls(row);
}

/**
 * Locks the session row until the transaction ends, so that the hosted page's order attempts
 * for one session (a double click, a reload) run one after another. NO KEY UPDATE, not UPDATE:
 * foreign-key checks of rows that point at the session (KEY SHARE) must not wait for it.
 */
export async function lockCheckoutSession(
  tx: Executor,
  sessionId: string,
): Promise<CheckoutSessionRow | undefined> {
  const [row] = await tx
    .select()
    .from(checkoutSessions)
    .where(eq(checkoutSessions.id, sessionId))
    .for('no key update');
  return withStoredReturnUrls(row);
}

/** The session's order to show: the paid one when complete, else the latest attempt. */
export async function sessionOrder(db: Executor, sessionId: string) {
  const rows = await db
    .select({ id: orders.id, status: orders.status, code: orders.orderCode })
    .from(orders)
    .where(eq(orders.checkoutSessionId, sessionId))
    .orderBy(desc(orders.createdAt), desc(orders.id));
  return rows.find((o) => o.status === 'paid') ?? rows[0] ?? null;
}

export async function toCheckoutSessionOut(
  ctx: AppContext,
  db: Executor,
  row: CheckoutSessionRow,
): Promise<CheckoutSessionOut> {
  return {
    id: row.id,
    status: sessionStatus(row, ctx.clock.now()),
    ui_mode: row.uiMode,
    url: checkoutUrl(ctx, row.id),
    expires_at: row.expiresAt.toISOString(),
    created_at: row.createdAt.toISOString(),
    event_id: row.eventId,
    client_reference_id: row.clientReferenceId,
    embed_origin: row.embedOrigin,
    on_success_url: row.successUrl,
    on_cancel_url: row.cancelUrl,
    order: await sessionOrder(db, row.id),
  };
}
