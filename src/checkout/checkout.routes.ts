// POST /v1/checkout-sessions (bearer or publishable key) and GET /v1/checkout-sessions/{id} (bearer).
import { Type } from 'typebox';
import { guard } from '../auth/authenticate.ts';
import { bodyEventOf, readBodyEvent, readSessionEvent, type SessionEvent } from '../events/events.ts';
import type { AppContext } from '../context.ts';
import { notFound } from '../platform/errors.ts';
import { envelope, type Host } from '../platform/http.ts';
import { idempotencyKeyOf, runIdempotentWrite, sendIdempotent } from '../platform/idempotency.ts';
import type { FastifyReply } from 'fastify';
import { Envelope, errorResponses, Timestamp } from '../platform/schemas.ts';
import {
  findCheckoutSession,
  MAX_CLIENT_REFERENCE_LENGTH,
  planCheckoutSession,
  toCheckoutSessionOut,
} from './sessions.ts';

const CREATED_MESSAGE = 'Checkout session created';

export const CheckoutSessionIn = Type.Object(
  {
    event_id: Type.String({ maxLength: 200, description: "The organization's event" }),
    ui_mode: Type.Optional(
      Type.Union([Type.Literal('redirect'), Type.Literal('embedded')], { default: undefined }),
    ),
    on_success_url: Type.Optional(
      Type.String({
        description:
          'Required for redirect. Absolute https URL on a registered return URL domain; {CHECKOUT_SESSION_ID} is replaced by the session id, otherwise session_id=<id> is added.',
        examples: ['https://club.example.org/thanks?session_id={CHECKOUT_SESSION_ID}'],
      }),
    ),
    on_cancel_url: Type.Optional(
      Type.String({
        description: 'Required for redirect. Same rules; used as given.',
        examples: ['https://club.example.org/race'],
      }),
    ),
    embed_origin: Type.Optional(
      Type.String({
        description:
          'Required for embedded sessions created with a bearer token: origin of the page hosting the modal.',
        examples: ['https://club.example.org'],
      }),
    ),
    client_reference_id: Type.Optional(
      Type.String({ description: `At most ${MAX_CLIENT_REFERENCE_LENGTH} characters` }),
    ),
    prefill: Type.Optional(
      Type.Object(
        {
          buyer_name: Type.Optional(Type.String({ maxLength: 200 })),
          buyer_email: Type.Optional(Type.String({ maxLength: 254 })),
          buyer_phone: Type.Optional(Type.String({ maxLength: 32 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const CheckoutSessionCreatedOut = Type.Object({
  id: Type.String({ examples: ['cs_4fQm2ZLx9TbK1wPq7sVd3nHa'] }),
  url: Type.String({ examples: ['https://checkout.example.com/checkout/cs_4fQm2ZLx9TbK1wPq7sVd3nHa'] }),
  expires_at: Timestamp,
  ui_mode: Type.String({ examples: ['redirect'] }),
});

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

export async function registerCheckoutRoutes(app: Host, ctx: AppContext) {
  app.post(
    '/v1/checkout-sessions',
    {
      config: { cors: true },
      ...guard(ctx, {
        admit: ctx.writes.admit,
        scope: 'checkout_sessions:write',
        publishable: true,
        // The event goes out with the credential check, and is checked against it after.
        alongside: readBodyEvent(ctx, readSessionEvent),
      }),
      schema: {
        tags: ['Checkout sessions'],
        summary: 'Create a checkout session',
        description:
          'Starts a hosted checkout (redirect) or an embedded one (modal opened by checkout.js). Send an Idempotency-Key header to retry safely.',
        security: [{ bearer: [] }, { publishableKey: [] }],
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        body: CheckoutSessionIn,
        response: {
          201: Envelope(CheckoutSessionCreatedOut, CREATED_MESSAGE),
          ...errorResponses(400, 401, 403, 404, 409, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const key = idempotencyKeyOf(request.headers['idempotency-key']);
      // Read with the credential check, before anything is written; a replay answers what was
      // stored whatever it says now.
      const found = await bodyEventOf<SessionEvent>(request);
      const result = await runIdempotentWrite(
        ctx,
        {
          clientId: auth.clientId,
          key,
          operation: 'POST /v1/checkout-sessions',
          // The embed origin taken from Origin is part of what a publishable-key request asks for.
          body: { body: request.body, origin: auth.kind === 'publishable' ? auth.origin : null },
        },
        () => {
          const session = planCheckoutSession(ctx, auth, request.body, found);
          return { ...session, body: envelope(201, CREATED_MESSAGE, session.body) };
        },
      );
      return sendIdempotent(reply as unknown as FastifyReply, result);
    },
  );

  app.get(
    '/v1/checkout-sessions/:sessionId',
    {
      ...guard(ctx, { scope: 'checkout_sessions:read' }),
      schema: {
        tags: ['Checkout sessions'],
        summary: 'Read a checkout session',
        description:
          'Server side only. Fulfil when status is complete and order.status is paid; the browser result is never proof of payment.',
        security: [{ bearer: [] }],
        params: Type.Object({ sessionId: Type.String() }),
        response: {
          200: Envelope(CheckoutSessionOut, 'Checkout session retrieved'),
          ...errorResponses(401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const db = ctx.database.db;
      const row = await findCheckoutSession(db, request.auth!.organizationId, request.params.sessionId);
      if (!row) throw notFound('checkout session');
      return envelope(200, 'Checkout session retrieved', await toCheckoutSessionOut(ctx, db, row));
    },
  );
}
