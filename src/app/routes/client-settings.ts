// One API client of the current organization: GET /developers/clients/:clientId and its writes
// (display name, scopes, publishable key, one domain added or removed, rotate secret, revoke with
// a confirmation page). Another organization's client is the same 404 page as a missing one. Each
// change that happens commits with its audit entry.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { recordAudit, type AuditAction } from '../../audit/audit-log.ts';
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
import type { Tx } from '../../platform/db.ts';
import { ApiError } from '../../platform/errors.ts';
import { memberOf, PageError } from '../app-access.ts';
import { formOf, hasErrors, readChoice, type FieldErrors } from '../form-body.ts';
import { actorOf, seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import {
  DOMAIN_LISTS,
  noticeFor,
  renderClient,
  renderRevokeConfirmation,
  type ClientView,
  type DomainList,
} from '../views/client-page.ts';
import { renderSecret } from '../views/developer-pages.ts';
import { readDisplayName, readScopes } from './developers.ts';
import { ClientParams, DoneQuery, paramsOf, queryOf } from '../app-input.ts';
import { ClientDomainForm, DISPLAY_NAME_READ } from '../app-forms.schema.ts';

/** as many entries as the admin API takes in one list */
const MAX_DOMAINS = 100;

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

/**
 * Runs a change of the client in a transaction with its audit entry, written only when the change
 * happened (a truthy result). Never put a secret in `details`.
 */
function audited<T>(
  ctx: AppContext,
  request: FastifyRequest,
  client: ApiClientRow,
  entry: { action: AuditAction; details?: Record<string, unknown> },
  change: (tx: Tx, now: Date) => Promise<T>,
): Promise<T> {
  const now = ctx.clock.now();
  return ctx.database.transaction(async (tx) => {
    const result = await change(tx, now);
    if (result) {
      await recordAudit(
        tx,
        {
          organizationId: client.organizationId,
          actor: actorOf(request),
          action: entry.action,
          targetType: 'client',
          targetId: client.id,
          ...(entry.details && { details: entry.details }),
        },
        now,
      );
    }
    return result;
  });
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
      return sendClient(ctx, request, reply, 422, {
        client,
        errors,
        notice: null,
        scopes: body.all('scopes'),
      });
    }
    await audited(ctx, request, client, { action: 'client.scopes_changed', details: { scopes } }, (tx, now) =>
      updateApiClient(tx, client.id, { scopes }, now),
    );
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
        displayName: (body.get('display_name') ?? '').slice(0, DISPLAY_NAME_READ),
      });
    }
    // Saving the same name again changes nothing, so nothing is recorded.
    if (displayName !== client.displayName) {
      await audited(
        ctx,
        request,
        client,
        { action: 'client.display_name_changed', details: { display_name: displayName } },
        (tx, now) => updateApiClient(tx, client.id, { displayName }, now),
      );
    }
    return back(reply, client, 'display_name');
  };
}

export function regenerateKey(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    // undefined for a revoked client: the update takes live clients only
    const row = await audited(
      ctx,
      request,
      client,
      { action: 'client.publishable_key_regenerated' },
      (tx, now) => regeneratePublishableKey(tx, client.id, now),
    );
    if (!row) return revokedAnswer(ctx, request, reply, client);
    return back(reply, client, 'key');
  };
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
    const list = readChoice(body, 'list', ClientDomainForm.properties.list);
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
    await audited(
      ctx,
      request,
      client,
      { action: 'client.domain_added', details: { list, origin } },
      (tx, now) => addClientOrigin(tx, client.id, COLUMN_OF[list], origin, MAX_DOMAINS, now),
    );
    return back(reply, client, 'added');
  };
}

export function removeDomain(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    if (client.revokedAt) return revokedAnswer(ctx, request, reply, client);
    const body = formOf(request.body);
    const list = readChoice(body, 'list', ClientDomainForm.properties.list);
    if (!list) throw new PageError('not_found', 'no such domain list');
    const origin = body.get('origin') ?? '';
    await audited(
      ctx,
      request,
      client,
      { action: 'client.domain_removed', details: { list, origin } },
      (tx, now) => removeClientOrigin(tx, client.id, COLUMN_OF[list], origin, now),
    );
    return back(reply, client, 'removed');
  };
}

export function rotateSecret(ctx: AppContext): Handler {
  return async (request, reply) => {
    const client = await clientOf(ctx, request);
    const rotated = await audited(ctx, request, client, { action: 'client.secret_rotated' }, (tx, now) =>
      rotateClientSecret(tx, client.id, now),
    );
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
    // Revoking again changes nothing (revoked_at stays), so it is recorded once.
    await audited(ctx, request, client, { action: 'client.revoked' }, async (tx, now) => {
      const row = await revokeApiClient(tx, client.id, now);
      return row && !client.revokedAt;
    });
    return back(reply, client, 'revoked');
  };
}
