// Webhook endpoints in developer settings: create (the secret is shown once, in the answer to the
// POST), change URL and event types, disable and enable, rotate the secret, delete after a
// confirmation page. Each is an action of the webhooks module (webhooks/actions/), audited there.
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../context.ts';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpointRow,
} from '../../webhooks/index.ts';
import { PageError } from '../app-access.ts';
import { formOf, hasErrors, type FieldErrors } from '../form-body.ts';
import { actingOf, seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderDeleteEndpoint, renderEndpointSecret, renderNewEndpoint } from '../views/webhook-pages.ts';
import { sendEndpoint } from './webhook-deliveries.ts';
import { endpointFormErrors, endpointOf, readEndpointForm } from './webhook-lookup.ts';

/** Deleted by someone else since it was looked up: the change and its entry are rolled back. */
function gone() {
  return new PageError('not_found', 'webhook endpoint deleted meanwhile');
}

function back(reply: FastifyReply, endpoint: WebhookEndpointRow, done: string) {
  return seeOther(reply, `/developers/webhooks/${endpoint.id}?done=${done}`);
}

export function showNewEndpoint(ctx: AppContext): Handler {
  return async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    return sendPage(
      reply,
      200,
      renderNewEndpoint({ viewer, url: '', events: [...WEBHOOK_EVENT_TYPES], errors: {} }),
    );
  };
}

export function createEndpoint(ctx: AppContext): Handler {
  return async (request, reply) => {
    const body = formOf(request.body);
    const errors: FieldErrors = {};
    const form = readEndpointForm(body, errors);
    const outcome = hasErrors(errors)
      ? null
      : await createWebhookEndpoint(ctx, { ...actingOf(request), url: form.url, events: form.events });
    if (!outcome || !('done' in outcome)) {
      const viewer = await viewerOf(ctx, request);
      const shown = outcome ? endpointFormErrors(outcome) : errors;
      const view = { viewer, url: form.url, events: form.events, errors: shown };
      return sendPage(reply, 422, renderNewEndpoint(view));
    }
    const { endpoint, secret } = outcome.done;
    const viewer = await viewerOf(ctx, request);
    return sendPage(reply, 201, renderEndpointSecret({ viewer, endpoint, secret, kind: 'created' }));
  };
}

export function updateEndpoint(ctx: AppContext): Handler {
  return async (request, reply) => {
    const endpoint = await endpointOf(ctx, request);
    const body = formOf(request.body);
    const errors: FieldErrors = {};
    const form = readEndpointForm(body, errors);
    const outcome = hasErrors(errors)
      ? null
      : await updateWebhookEndpoint(ctx, {
          ...actingOf(request),
          endpointId: endpoint.id,
          url: form.url,
          events: form.events,
        });
    if (!outcome || !('done' in outcome)) {
      return sendEndpoint(ctx, request, reply, 422, {
        endpoint,
        errors: outcome ? endpointFormErrors(outcome) : errors,
        form: { url: form.url, events: form.events },
      });
    }
    return back(reply, endpoint, 'updated');
  };
}

/** Disables or enables the endpoint (nothing when it already is). */
function setEndpointStatus(ctx: AppContext, status: 'enabled' | 'disabled'): Handler {
  return async (request, reply) => {
    const endpoint = await endpointOf(ctx, request);
    const outcome = await updateWebhookEndpoint(ctx, {
      ...actingOf(request),
      endpointId: endpoint.id,
      status,
    });
    if (!('done' in outcome)) throw gone();
    return back(reply, endpoint, status);
  };
}

export const disableEndpoint = (ctx: AppContext): Handler => setEndpointStatus(ctx, 'disabled');
export const enableEndpoint = (ctx: AppContext): Handler => setEndpointStatus(ctx, 'enabled');

export function rotateEndpointSecret(ctx: AppContext): Handler {
  return async (request, reply) => {
    const endpoint = await endpointOf(ctx, request);
    const outcome = await rotateWebhookSecret(ctx, { ...actingOf(request), endpointId: endpoint.id });
    // deleted by someone else between the lookup and the rotation
    if (!('done' in outcome)) return seeOther(reply, '/developers');
    const rotated = outcome.done;
    const viewer = await viewerOf(ctx, request);
    return sendPage(
      reply,
      200,
      renderEndpointSecret({ viewer, endpoint: rotated.endpoint, secret: rotated.secret, kind: 'rotated' }),
    );
  };
}

export function confirmDeleteEndpoint(ctx: AppContext): Handler {
  return async (request, reply) => {
    const endpoint = await endpointOf(ctx, request);
    const viewer = await viewerOf(ctx, request);
    return sendPage(reply, 200, renderDeleteEndpoint(viewer, endpoint));
  };
}

export function deleteEndpoint(ctx: AppContext): Handler {
  return async (request, reply) => {
    const endpoint = await endpointOf(ctx, request);
    await deleteWebhookEndpoint(ctx, { ...actingOf(request), endpointId: endpoint.id });
    return seeOther(reply, '/developers?done=webhook_deleted');
  };
}
