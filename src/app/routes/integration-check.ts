// The integration checker: GET /developers/integration answers, for a site origin and one of the
// organization's live API clients, whether the origin is in the client's allowed domains and
// return URL domains, with the checkout.js tag and the CSP the site needs; and POST
// /developers/integration/webhooks/:endpointId/test sends a signed test event to an endpoint now.
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { checkClientLists, listApiClients } from '../../auth/index.ts';
import { CHECKOUT_JS_PATH } from '../../embed/index.ts';
import { can } from '../../members/index.ts';
import { ApiError } from '../../platform/index.ts';
import { createTestDelivery, listWebhookEndpoints } from '../../webhooks/index.ts';
import { checkField, formOf, hasErrors, readChoice, readField, type FieldErrors } from '../form-body.ts';
import { seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderIntegration, type OriginCheck } from '../views/integration-page.ts';
import { DISABLED_PROBLEM, sentResult } from './webhook-deliveries.ts';
import { endpointOf, sendNow } from './webhook-lookup.ts';
import { queryOf } from '../app-input.ts';
import { IntegrationCheckForm } from '../app-forms.schema.ts';

/**
 * The origin typed, canonical and checked as the client settings page checks a domain; `errors`
 * may hold the message its form's reading already gave it (the value was then cut to the limit).
 */
function checkOrigin(asked: string, errors: FieldErrors): OriginCheck {
  const typed = checkField(asked, 'origin', IntegrationCheckForm.properties.origin, errors);
  if (errors.origin) return { typed, origin: null, message: errors.origin };
  if (typed === '') return { typed, origin: null, message: null };
  try {
    const origin = checkClientLists({ allowed_domains: [typed] }).allowedDomains?.[0];
    return origin
      ? { typed, origin, message: null }
      : { typed, origin: null, message: 'Enter an origin, such as https://shop.example.org.' };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return {
      typed,
      origin: null,
      message: `The site origin ${error.errors?.[0]?.message ?? 'must be an origin'}.`,
    };
  }
}

/** The origin and client to check, and which endpoint a test send went to with its result. */
const CheckerQuery = Type.Object({
  origin: Type.Optional(Type.String()),
  client: Type.Optional(IntegrationCheckForm.properties.client),
  sent: Type.Optional(Type.String()),
  endpoint: Type.Optional(Type.String()),
});

function checkerQuery(request: FastifyRequest) {
  return queryOf(request, CheckerQuery);
}

/** The checker page for the query's origin and client, with the result of a send if one was made. */
async function sendChecker(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  fields: Record<string, string | undefined>,
  problem: string | null = null,
  errors: FieldErrors = {},
) {
  const viewer = await viewerOf(ctx, request);
  const db = ctx.database.db;
  const organizationId = viewer.current.organizationId;
  const clients = (await listApiClients(db, organizationId)).filter((c) => !c.revokedAt);
  const client = clients.find((c) => c.id === fields.client) ?? clients[0] ?? null;
  const endpoints = await listWebhookEndpoints(db, organizationId);
  const tested = endpoints.find((e) => e.id === fields.endpoint);
  const sent = tested ? await sentResult(ctx, tested, fields.sent) : null;
  const origin = checkOrigin(fields.origin ?? '', errors);
  const status = problem ? 409 : origin.message ? 422 : 200;
  return sendPage(
    reply,
    status,
    renderIntegration({
      viewer,
      canWrite: can(viewer.current.role, 'developer_settings'),
      clients,
      client,
      origin,
      site: ctx.config.siteUrl.origin,
      api: ctx.config.apiUrl.origin,
      scriptUrl: `${ctx.config.siteUrl.origin}${CHECKOUT_JS_PATH}`,
      endpoints,
      sent: sent && tested ? { endpoint: tested, ...sent } : null,
      problem,
    }),
  );
}

export function showIntegration(ctx: AppContext): Handler {
  return async (request, reply) => sendChecker(ctx, request, reply, checkerQuery(request));
}

/** Back to the checker with what was being checked (from hidden fields) and the send's result. */
function checkerUrl(
  fields: { origin?: string | undefined; client?: string | undefined },
  extra: Record<string, string>,
) {
  const params = new URLSearchParams();
  if (fields.origin) params.set('origin', fields.origin);
  if (fields.client) params.set('client', fields.client);
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  return `/developers/integration?${params.toString()}#webhooks`;
}

export function sendIntegrationTest(ctx: AppContext): Handler {
  return async (request, reply) => {
    const endpoint = await endpointOf(ctx, request);
    const body = formOf(request.body);
    const errors: FieldErrors = {};
    const fields = {
      origin: readField(body, 'origin', IntegrationCheckForm.properties.origin, errors),
      client: readChoice(body, 'client', IntegrationCheckForm.properties.client) ?? undefined,
    };
    // The checker again with the origin's message; nothing is sent.
    if (hasErrors(errors)) return sendChecker(ctx, request, reply, fields, null, errors);
    if (endpoint.status !== 'enabled') return sendChecker(ctx, request, reply, fields, DISABLED_PROBLEM);
    const delivery = await ctx.database.transaction((tx) =>
      createTestDelivery(tx, endpoint, ctx.clock.now()),
    );
    await sendNow(ctx, delivery.id);
    return seeOther(reply, checkerUrl(fields, { endpoint: endpoint.id, sent: delivery.id }));
  };
}
