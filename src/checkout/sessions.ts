// Checkout sessions: creation with every rule of docs/contract.md#creating-a-session, and the read
// shape of docs/contract.md#reading-a-session.
// The wire schemas are the routes' validation and OpenAPI and, through Static, the types here.
import { and, eq, ne } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import type { PartnerAuth } from '../auth/index.ts';
import type { AppContext } from '../context.ts';
import { isRegistrationOpen, type SessionEvent } from '../events/index.ts';
import { findSessionOrder, MAX_TICKETS_PER_ORDER, phoneCountryOf } from '../orders/index.ts';
import {
  ApiError,
  currentTraceContext,
  methodsForCurrency,
  newId,
  notFound,
  Timestamp,
  validationError,
  type Executor,
  type PlannedWrite,
} from '../platform/index.ts';
import { checkoutSessions } from './checkout.schema.ts';
import { MAX_RETURN_URL_LENGTH, storedReturnUrl, successUrlFor } from './return-urls.ts';
import { checkSessionFields, MAX_CLIENT_REFERENCE_LENGTH } from './session-fields.ts';

export type CheckoutSessionRow = typeof checkoutSessions.$inferSelect;

const SESSION_LIFETIME_MS = 24 * 3600 * 1000;

export const CheckoutSessionIn = Type.Object(
  {
    event_id: Type.String({
      maxLength: 200,
      description: "The organization's event; its registration must be open (409 sale_closed otherwise)",
    }),
    ui_mode: Type.Optional(
      Type.Union([Type.Literal('redirect'), Type.Literal('embedded')], {
        // No `default` keyword: validation would write it into the body (see the description).
        default: undefined,
        description:
          'redirect (the default when left out): send the buyer to url, they come back to on_success_url or on_cancel_url. embedded: checkout.js opens url in a modal on the page at embed_origin.',
      }),
    ),
    on_success_url: Type.Optional(
      Type.String({
        description: `Required for redirect sessions. An absolute https URL (http only for http://localhost:<port> or http://127.0.0.1:<port>, for development) whose origin is exactly one of the client's registered return URL domains; at most ${MAX_RETURN_URL_LENGTH} characters, no user name or password, no spaces or control characters. Each {CHECKOUT_SESSION_ID} (or %7BCHECKOUT_SESSION_ID%7D) is replaced by the session id; without one, session_id=<id> is set in the query. Stored and used in its standard serialized form (non-ASCII percent-encoded, an international domain name in punycode).`,
        examples: ['https://club.example.org/thanks?session_id={CHECKOUT_SESSION_ID}'],
      }),
    ),
    on_cancel_url: Type.Optional(
      Type.String({
        description:
          'Required for redirect sessions. The same rules as on_success_url, but no placeholder is replaced and no session_id added.',
        examples: ['https://club.example.org/race'],
      }),
    ),
    embed_origin: Type.Optional(
      Type.String({
        description:
          "Embedded sessions only, and required for them with a bearer token: the origin of the page hosting the modal, https://host[:port] with no path (http only for localhost:<port> or 127.0.0.1:<port>), one of the client's allowed domains (400 invalid_embed_origin otherwise). With a publishable key it is ignored: the request's Origin is used.",
        examples: ['https://club.example.org'],
      }),
    ),
    client_reference_id: Type.Optional(
      Type.String({
        description: `Your reference, 1 to ${MAX_CLIENT_REFERENCE_LENGTH} characters; returned on the session and as the order's attribution.partner_reference`,
        examples: ['cart-1042'],
      }),
    ),
    prefill: Type.Optional(
      Type.Object(
        {
          buyer_name: Type.Optional(Type.String({ maxLength: 200 })),
          buyer_email: Type.Optional(Type.String({ maxLength: 254 })),
          buyer_phone: Type.Optional(
            Type.String({ maxLength: 32, description: 'A Ugandan mobile number, e.g. 0772 123456' }),
          ),
        },
        {
          additionalProperties: false,
          description: 'Buyer details filled in on the checkout page, which the buyer may change',
        },
      ),
    ),
    line_items: Type.Optional(
      Type.Array(
        Type.Object(
          {
            ticket_type_id: Type.String({ maxLength: 64, description: "One of the event's ticket types" }),
            quantity: Type.Integer({ minimum: 1, maximum: MAX_TICKETS_PER_ORDER }),
          },
          { additionalProperties: false },
        ),
        {
          maxItems: 100,
          description: `The tickets the checkout page opens with chosen, which the buyer may change: at most one item per ticket type, ${MAX_TICKETS_PER_ORDER} tickets in all. With the tickets known, the page opens on the buyer's details.`,
        },
      ),
    ),
    locale: Type.Optional(
      Type.Union([Type.Literal('en'), Type.Literal('sw')], {
        description:
          "The checkout page's language, English or Swahili, over the browser's Accept-Language; the buyer may still switch.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CheckoutSessionIn = Static<typeof CheckoutSessionIn>;

export const CheckoutSessionCreatedOut = Type.Object({
  id: Type.String({ examples: ['cs_4fQm2ZLx9TbK1wPq7sVd3nHa'] }),
  url: Type.String({ examples: ['https://checkout.example.com/checkout/cs_4fQm2ZLx9TbK1wPq7sVd3nHa'] }),
  expires_at: Timestamp,
  ui_mode: Type.String({ description: 'redirect or embedded', examples: ['redirect'] }),
});
export type CheckoutSessionCreatedOut = Static<typeof CheckoutSessionCreatedOut>;

/**
 * Plans a session: every rule checked (a refusal is thrown), the answer built from the values to
 * be written, and the row that holds them (PlannedWrite). Nothing is read: the event was looked
 * up before.
 */
export function planCheckoutSession(
  ctx: AppContext,
  auth: PartnerAuth,
  input: CheckoutSessionIn,
  /** the event as readSessionEvent reads it, kept to the caller's organization */
  found: SessionEvent | undefined,
): PlannedWrite<CheckoutSessionCreatedOut> {
  const country = phoneCountryOf(found?.event.currency ?? '');
  const { errors, embedOrigin } = checkSessionFields(auth, input, country);
  if (errors.length > 0) throw validationError(errors);
  if (embedOrigin !== null && !auth.allowedDomains.includes(embedOrigin)) {
    throw new ApiError(
      'invalid_embed_origin',
      `embed_origin ${embedOrigin} is not one of this client's allowed domains.`,
    );
  }
  const now = ctx.clock.now();
  if (!found || found.event.id !== input.event_id) throw notFound('event');
  const unknown = (input.line_items ?? []).flatMap((item, i) =>
    found.ticketTypeIds.includes(item.ticket_type_id)
      ? []
      : [{ field: `line_items[${i}].ticket_type_id`, message: 'is not a ticket type of this event' }],
  );
  if (unknown.length > 0) throw validationError(unknown);
  if (!isRegistrationOpen(found.event, now)) {
    throw new ApiError('sale_closed', 'Registration for this event is not open.');
  }
  if (!found.organization.paymentsEnabled && found.hasPaidTickets) {
    throw new ApiError('payments_disabled', 'This organization cannot take payments yet.');
  }
  // A live service without M-Pesa's settings takes no KES: no buyer is sent to a page they cannot pay on.
  if (found.hasPaidTickets && methodsForCurrency(found.event.currency, ctx.paymentMethods).length === 0) {
    throw new ApiError('payments_disabled', `No payment method takes ${found.event.currency} here yet.`);
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
      line_items: input.line_items ?? [],
      locale: input.locale ?? null,
      expires_at: expiresAt.toISOString(),
      created_at: now.toISOString(),
      // the checkout's later steps, on the buyer's requests and in jobs, continue this trace
      trace_context: currentTraceContext(),
    },
  };
}

function checkoutUrl(ctx: AppContext, sessionId: string): string {
  return new URL(`/checkout/${sessionId}`, ctx.config.siteUrl).toString();
}

/** open | complete | expired, kept true by time: a 24-hour-old session reads expired at once. */
export function sessionStatus(row: Pick<CheckoutSessionRow, 'status' | 'expiresAt'>, now: Date): string {
  if (row.status === 'complete') return 'complete';
  if (row.status === 'expired' || row.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'open';
}

export const CheckoutSessionOut = Type.Object({
  id: Type.String(),
  status: Type.String({ description: 'open, complete or expired', examples: ['complete'] }),
  ui_mode: Type.String(),
  url: Type.String(),
  expires_at: Timestamp,
  created_at: Timestamp,
  event_id: Type.String(),
  client_reference_id: Type.Union([Type.String(), Type.Null()]),
  embed_origin: Type.Union([Type.String(), Type.Null()]),
  on_success_url: Type.Union([Type.String(), Type.Null()], {
    description: 'Where the buyer lands after paying, with the session id already filled in',
  }),
  on_cancel_url: Type.Union([Type.String(), Type.Null()]),
  order: Type.Union([
    Type.Object({ id: Type.String(), status: Type.String({ examples: ['paid'] }), code: Type.String() }),
    Type.Null(),
  ]),
});
export type CheckoutSessionOut = Static<typeof CheckoutSessionOut>;

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

/**
 * Marks sessions complete, in the transaction that paid their order: payments' settleOrderPaid,
 * and the hosted checkout for an order paid at once (free).
 */
export async function completeCheckoutSessions(
  db: Executor,
  completed: Array<{ sessionId: string; at: Date }>,
): Promise<void> {
  await Promise.all(
    completed.map(({ sessionId, at }) =>
      db
        .update(checkoutSessions)
        .set({ status: 'complete', completedAt: at })
        .where(and(eq(checkoutSessions.id, sessionId), ne(checkoutSessions.status, 'complete'))),
    ),
  );
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
    order: await findSessionOrder(db, row.id),
  };
}
