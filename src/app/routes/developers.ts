// Developer settings: GET /developers (the organization's API clients), GET /developers/clients/new
// and POST /developers/clients (create, with its audit entry; the secret is shown once, in the
// answer to the POST; 409 with the form again when the organization has its most live clients).
import type { AppContext } from '../../context.ts';
import {
  checkDisplayName,
  clientLimitMessage,
  createApiClient,
  DEFAULT_SCOPES,
  listApiClients,
  type Scope,
} from '../../auth/index.ts';
import { ERROR_STATUS, type Refusal } from '../../platform/index.ts';
import { can } from '../../members/index.ts';
import { listWebhookEndpoints } from '../../webhooks/index.ts';
import { memberOf } from '../app-access.ts';
import { formOf, hasErrors, readChoices, readField, type FieldErrors, type FormBody } from '../form-body.ts';
import { actorOf, sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderDevelopers, renderNewClient, renderSecret } from '../views/developer-pages.ts';
import { DoneQuery, queryOf } from '../app-input.ts';
import { CreateClientForm } from '../app-forms.schema.ts';

export function showDevelopers(ctx: AppContext): Handler {
  return async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    const clients = await listApiClients(ctx.database.db, viewer.current.organizationId);
    const canWrite = can(viewer.current.role, 'developer_settings');
    const endpoints = await listWebhookEndpoints(ctx.database.db, viewer.current.organizationId);
    const { done } = queryOf(request, DoneQuery);
    return sendPage(reply, 200, renderDevelopers(viewer, clients, canWrite, endpoints, done));
  };
}

export function showNewClient(ctx: AppContext): Handler {
  return async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    return sendPage(
      reply,
      200,
      renderNewClient({ viewer, name: '', displayName: '', scopes: DEFAULT_SCOPES, errors: {} }),
    );
  };
}

/** The checked scopes, at least one, each one of ours; a message under "scopes" when not. */
export function readScopes(body: FormBody, errors: FieldErrors): Scope[] {
  return readChoices(body, 'scopes', CreateClientForm.properties.scopes, errors);
}

/**
 * The display name as typed (up to what is read) and as the admin API checks it; empty means none
 * (null). A message under "display_name" when something is wrong.
 */
export function readDisplayName(
  body: FormBody,
  errors: FieldErrors,
): { typed: string; value: string | null } {
  // Past the read limit the value is cut; the rules below then say in the API's words what is wrong.
  const typed = readField(body, 'display_name', CreateClientForm.properties.display_name, {});
  if (typed.trim() === '') return { typed, value: null };
  const checked = checkDisplayName(typed);
  if ('message' in checked) {
    errors.display_name = `Display name ${checked.message}.`;
    return { typed, value: null };
  }
  return { typed, value: checked.value };
}

export function createClient(ctx: AppContext): Handler {
  return async (request, reply) => {
    const current = memberOf(request);
    const body = formOf(request.body);
    const errors: FieldErrors = {};
    const name = readField(body, 'name', CreateClientForm.properties.name, errors);
    const displayName = readDisplayName(body, errors);
    const scopes = readScopes(body, errors);
    if (hasErrors(errors)) {
      const viewer = await viewerOf(ctx, request);
      return sendPage(
        reply,
        422,
        renderNewClient({ viewer, name, displayName: displayName.typed, scopes, errors }),
      );
    }
    const outcome = await createApiClient(ctx, {
      actor: actorOf(request),
      organizationId: current.organizationId,
      name,
      display_name: displayName.value,
      scopes,
    });
    const viewer = await viewerOf(ctx, request);
    if (!('done' in outcome)) {
      const limit = outcome.refused === 'client_limit_reached';
      const form = {
        viewer,
        name,
        displayName: displayName.typed,
        scopes,
        errors: limit ? {} : clientFormErrors(outcome),
        problem: limit ? clientLimitMessage(outcome) : null,
      };
      return sendPage(reply, limit ? ERROR_STATUS.client_limit_reached : 422, renderNewClient(form));
    }
    const { client, clientSecret } = outcome.done;
    return sendPage(reply, 201, renderSecret({ viewer, client, secret: clientSecret, kind: 'created' }));
  };
}

/** A client action's refusal as the form's field errors (`scopes[2]` is the scopes field). */
function clientFormErrors(refusal: Refusal): FieldErrors {
  if (refusal.refused !== 'invalid')
    return { name: refusal.refused === 'conflict' ? refusal.message : 'Not found.' };
  return Object.fromEntries(
    refusal.errors.map((e) => [e.field.replace(/\[\d+\]$/, ''), `This ${e.message}.`]),
  );
}
