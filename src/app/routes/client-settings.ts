// One API client of the current organization: GET /developers/clients/:clientId and its writes
// (display name, scopes, publishable key, one domain added or removed, rotate secret, revoke with
// a confirmation page). Another organization's client is the same 404 page as a missing one. Each
// write is an action of the auth module (auth/actions/), which audits it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import {
  changeClientOrigin,
  findApiClient,
  MAX_CLIENT_ORIGINS,
  regeneratePublishableKey,
  revokeApiClient,
  rotateClientSecret,
  updateApiClient,
  type ApiClientRow,
} from '../../auth/index.ts';
import { can } from '../../members/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { formOf, hasErrors, readChoice, readField, type FieldErrors } from '../form-body.ts';
import { actingOf, seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import {
  DOMAIN_LISTS,
  noticeFor,
  renderClient,
  renderRevokeConfirmation,
  type ClientView,
} from '../views/client-page.ts';
import { renderSecret } from '../views/developer-pages.ts';
import { readDisplayName, readScopes } from './developers.ts';
import { ClientParams, DoneQuery, paramsOf, queryOf } from '../app-input.ts';
import { ClientDomainForm } from '../app-forms.schema.ts';

/** The client named in the path, if it belongs to the member's current organization. */
async function clientOf(ctx: AppContext, request: FastifyRequest): Promise<ApiClientRow> {
  const { clientId } = paramsOf(request, ClientParams);
  const current = memberOf(request);
  const client = await findApiClient(ctx.database.db, clientId);
  if (!client || client.organizationId !== current.organizationId) throw new PageError('not_found', 'client');
  return client;
}

async function sendClient(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  view: Omit<ClientView, 'viewer' | 'canWrite'>,
) {
  const viewer = await viewerOf(ctx, request);
  const canWrite = can(viewer.current.role, 'developer_settings');
  return sendPage(reply, status, renderClient({ ...view, viewer, canWrite }));
}

function back(reply: FastifyReply, client: ApiClientRow, done: string) {
  return seeOther(reply, `/developers/clients/${client.id}?done=${done}`);
}

function revokedAnswer(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, client: ApiClientRow) {
  return sendClient(ctx, request, reply, 409, {
    client,
    errors: {},
    notice: null,
    problem: 'This client is revoked and cannot be changed; create a new client instead.',
  });
}

export function showClient(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    const { done } = queryOf(request, DoneQuery);
    return sendClient(ctx, request, reply, 200, { client, errors: {}, notice: noticeFor(done) });
  };
}

export function updateScopes(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    if (client.revokedAt) return revokedAnswer(ctx, request, reply, client);
    const body = formOf(request.body);
    const errors: FieldErrors = {};
    const scopes = readScopes(body, errors);
    if (hasErrors(errors)) {
      return sendClient(ctx, request, reply, 422, { client, errors, notice: null, scopes });
    }
    await updateApiClient(ctx, { ...actingOf(request), clientId: client.id, scopes });
    return back(reply, client, 'scopes');
  };
}

/** Sets the display name buyers see, or removes it when the field is left empty. */
export function updateDisplayName(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    if (client.revokedAt) return revokedAnswer(ctx, request, reply, client);
    const body = formOf(request.body);
    const errors: FieldErrors = {};
    const displayName = readDisplayName(body, errors);
    if (hasErrors(errors)) {
      return sendClient(ctx, request, reply, 422, {
        client,
        errors,
        notice: null,
        displayName: displayName.typed,
      });
    }
    // Saving the same name again changes nothing, so nothing is recorded.
    await updateApiClient(ctx, {
      ...actingOf(request),
      clientId: client.id,
      display_name: displayName.value,
    });
    return back(reply, client, 'display_name');
  };
}

export function regenerateKey(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    const outcome = await regeneratePublishableKey(ctx, { ...actingOf(request), clientId: client.id });
    if (!('done' in outcome)) return revokedAnswer(ctx, request, reply, client);
    return back(reply, client, 'key');
  };
}

export function addDomain(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    if (client.revokedAt) return revokedAnswer(ctx, request, reply, client);
    const body = formOf(request.body);
    const list = readChoice(body, 'list', ClientDomainForm.properties.list);
    if (!list) throw new PageError('not_found', 'no such domain list');
    const field = DOMAIN_LISTS[list].field;
    const errors: FieldErrors = {};
    // "https://shop.example.org/" as copied from an address bar is that origin
    const typed = readField(body, field, ClientDomainForm.properties[field], errors).replace(
      /^(https?:\/\/[^/?#]+)\/$/i,
      '$1',
    );
    const outcome = hasErrors(errors)
      ? null
      : await changeClientOrigin(ctx, {
          ...actingOf(request),
          clientId: client.id,
          list,
          origin: typed,
          change: 'add',
        });
    if (outcome && 'done' in outcome) return back(reply, client, 'added');
    if (outcome?.refused === 'client_revoked') return revokedAnswer(ctx, request, reply, client);
    if (outcome?.refused === 'list_full')
      errors[field] = `A list holds at most ${MAX_CLIENT_ORIGINS} origins.`;
    else if (outcome?.refused === 'invalid')
      errors[field] = `This ${outcome.errors[0]?.message ?? 'must be an origin'}.`;
    else if (outcome) errors[field] = 'This client is not there any more.';
    return sendClient(ctx, request, reply, 422, {
      client,
      errors,
      notice: null,
      typed: list === 'allowed_domains' ? { allowed_domains: typed } : { return_url_domains: typed },
    });
  };
}

export function removeDomain(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    if (client.revokedAt) return revokedAnswer(ctx, request, reply, client);
    const body = formOf(request.body);
    const list = readChoice(body, 'list', ClientDomainForm.properties.list);
    if (!list) throw new PageError('not_found', 'no such domain list');
    // The list's entries are the only values the page offers; one that cannot be an entry names none.
    const origin = readChoice(body, 'origin', ClientDomainForm.properties.origin);
    if (origin === null) throw new PageError('not_found', 'no such origin');
    await changeClientOrigin(ctx, {
      ...actingOf(request),
      clientId: client.id,
      list,
      origin,
      change: 'remove',
    });
    return back(reply, client, 'removed');
  };
}

export function rotateSecret(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    const outcome = await rotateClientSecret(ctx, { ...actingOf(request), clientId: client.id });
    if (!('done' in outcome)) return revokedAnswer(ctx, request, reply, client);
    const rotated = outcome.done;
    const viewer = await viewerOf(ctx, request);
    return sendPage(
      reply,
      200,
      renderSecret({ viewer, client: rotated.client, secret: rotated.clientSecret, kind: 'rotated' }),
    );
  };
}

export function confirmRevoke(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    if (client.revokedAt) return back(reply, client, 'revoked');
    const viewer = await viewerOf(ctx, request);
    return sendPage(reply, 200, renderRevokeConfirmation(viewer, client));
  };
}

export function revokeClient(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    await revokeApiClient(ctx, { ...actingOf(request), clientId: client.id });
    return back(reply, client, 'revoked');
  };
}
