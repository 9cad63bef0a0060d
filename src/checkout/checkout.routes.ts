// POST /v1/checkout-sessions (bearer or publishable key) and GET /v1/checkout-sessions/{id} (bearer).
import { Type } from 'typebox';
import { guard } from '../auth/index.ts';
import { bodyEventOf, readBodyEvent, readSessionEvent, type SessionEvent } from '../events/index.ts';
import type { AppContext } from '../context.ts';
import {
  Envelope,
  envelope,
  errorResponses,
  idempotencyKeyOf,
  notFound,
  runIdempotentWrite,
  sendIdempotent,
  type Host,
} from '../platform/index.ts';
import type { FastifyReply } from 'fastify';
import {
  CheckoutSessionCreatedOut,
  CheckoutSessionIn,
  CheckoutSessionOut,
  findCheckoutSession,
  planCheckoutSession,
  toCheckoutSessionOut,
} from './sessions.ts';

const CREATED_MESSAGE = 'Checkout session created';

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
          'Starts a hosted checkout (ui_mode redirect, the default) or an embedded one (ui_mode embedded: a modal opened by checkout.js). The session expires 24 hours after it is created. Send an Idempotency-Key header to retry safely.',
        security: [{ bearer: [] }, { publishableKey: [] }],
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        body: CheckoutSessionIn,
        response: {
          201: Envelope(CheckoutSessionCreatedOut, CREATED_MESSAGE, 201),
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
