// One API client of the current organization: GET /developers/clients/:clientId and its writes
// (scopes, publishable key, one domain added or removed, rotate secret, revoke with a confirmation
// page). Another organization's client is the same 404 page as a missing one.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { checkClientLists } from '../../auth/client-lists.ts';
import {
  addClientOrigin,
  findApiClient,
  regeneratePublishableKey,
  removeClientOrigin,
  revokeApiClient,
  rotateClientSecret,
  updateApiClient,
  type ApiClientRow,
  type OriginList,
} from '../../auth/clients.ts';
import { can } from '../../members/roles.ts';
import { ApiError } from '../../platform/errors.ts';
import { memberOf, PageError } from '../app-access.ts';
import { formOf, hasErrors, type FieldErrors } from '../form-body.ts';
import { seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import {
  DOMAIN_LISTS,
  noticeFor,
  renderClient,
  renderRevokeConfirmation,
  type ClientView,
  type DomainList,
} from '../views/client-page.ts';
import { renderSecret } from '../views/developer-pages.ts';
import { readScopes } from './developers.ts';

const CLIENT_ID = /^cli_[A-Za-z0-9]{8,64}$/;
/** as many entries as the admin API takes in one list */
const MAX_DOMAINS = 100;

/** The client named in the path, if it belongs to the member's current organization. */
async function clientOf(ctx: AppContext, request: FastifyRequest): Promise<ApiClientRow> {
  const { clientId } = request.params as { clientId: string };
  const current = memberOf(request);
  const client = CLIENT_ID.test(clientId) ? await findApiClient(ctx.database.db, clientId) : undefined;
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
    const done = (request.query as Record<string, string | undefined>).done;
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
      return sendClient(ctx, request, reply, 422, {
        client,
        errors,
        notice: null,
        scopes: body.all('scopes'),
      });
    }
    await updateApiClient(ctx.database.db, client.id, { scopes }, ctx.clock.now());
    return back(reply, client, 'scopes');
  };
}

export function regenerateKey(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    // undefined for a revoked client: the update takes live clients only
    const row = await regeneratePublishableKey(ctx.database.db, client.id, ctx.clock.now());
    if (!row) return revokedAnswer(ctx, request, reply, client);
    return back(reply, client, 'key');
  };
}

function listOf(value: string | undefined): DomainList | null {
  return value === 'allowed_domains' || value === 'return_url_domains' ? value : null;
}

function entriesOf(client: ApiClientRow, list: DomainList): string[] {
  return list === 'allowed_domains' ? client.allowedDomains : client.returnUrlDomains;
}

const COLUMN_OF: Record<DomainList, OriginList> = {
  allowed_domains: 'allowedDomains',
  return_url_domains: 'returnUrlDomains',
};

/** The origin typed, canonical, checked as the admin API checks it; or a message. */
function checkOrigin(list: DomainList, value: string): { origin: string } | { message: string } {
  if (value === '') return { message: 'Enter an origin, such as https://shop.example.org.' };
  try {
    const entry = [value.slice(0, 2048)];
    const checked = checkClientLists(
      list === 'allowed_domains' ? { allowed_domains: entry } : { return_url_domains: entry },
    );
    const origin = (list === 'allowed_domains' ? checked.allowedDomains : checked.returnUrlDomains)?.[0];
    return origin ? { origin } : { message: 'Enter an origin, such as https://shop.example.org.' };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { message: `This ${error.errors?.[0]?.message ?? 'must be an origin'}.` };
  }
}

export function addDomain(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    if (client.revokedAt) return revokedAnswer(ctx, request, reply, client);
    const body = formOf(request.body);
    const list = listOf(body.get('list'));
    if (!list) throw new PageError('not_found', 'no such domain list');
    const field = DOMAIN_LISTS[list].field;
    const typed = (body.get(field) ?? '').trim();
    const checked = checkOrigin(list, typed);
    const entries = entriesOf(client, list);
    let message = 'message' in checked ? checked.message : null;
    if (!message && entries.length >= MAX_DOMAINS) message = `A list holds at most ${MAX_DOMAINS} origins.`;
    if (message) {
      return sendClient(ctx, request, reply, 422, {
        client,
        errors: { [field]: message },
        notice: null,
        typed: list === 'allowed_domains' ? { allowed_domains: typed } : { return_url_domains: typed },
      });
    }
    const origin = (checked as { origin: string }).origin;
    await addClientOrigin(ctx.database.db, client.id, COLUMN_OF[list], origin, MAX_DOMAINS, ctx.clock.now());
    return back(reply, client, 'added');
  };
}

export function removeDomain(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    if (client.revokedAt) return revokedAnswer(ctx, request, reply, client);
    const body = formOf(request.body);
    const list = listOf(body.get('list'));
    if (!list) throw new PageError('not_found', 'no such domain list');
    const origin = body.get('origin') ?? '';
    await removeClientOrigin(ctx.database.db, client.id, COLUMN_OF[list], origin, ctx.clock.now());
    return back(reply, client, 'removed');
  };
}

export function rotateSecret(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    const rotated = await rotateClientSecret(ctx.database.db, client.id, ctx.clock.now());
    if (!rotated) return revokedAnswer(ctx, request, reply, client);
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
    await revokeApiClient(ctx.database.db, client.id, ctx.clock.now());
    return back(reply, client, 'revoked');
  };
}
