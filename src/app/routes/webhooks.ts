// Webhook endpoints in developer settings: create (the secret is shown once, in the answer to the
// POST), change URL and event types, disable and enable, rotate the secret, delete after a
// confirmation page. Each change and its audit entry are written in one transaction.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { recordAudit, type AuditAction } from '../../audit/audit-log.ts';
import type { Tx } from '../../platform/db.ts';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  disableWebhookEndpoint,
  enableWebhookEndpoint,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpointRow,
} from '../../webhooks/webhook-endpoints.ts';
import { memberOf, PageError } from '../app-access.ts';
import { formOf, hasErrors, type FieldErrors } from '../form-body.ts';
import { actorOf, seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderDeleteEndpoint, renderEndpointSecret, renderNewEndpoint } from '../views/webhook-pages.ts';
import { sendEndpoint } from './webhook-deliveries.ts';
import { endpointOf, readEndpointForm } from './webhook-lookup.ts';

function audit(
  tx: Tx,
  request: FastifyRequest,
  endpoint: WebhookEndpointRow,
  action: AuditAction,
  details: Record<string, unknown>,
  now: Date,
) {
  return recordAudit(
    tx,
    {
      organizationId: endpoint.organizationId,
      actor: actorOf(request),
      action,
      targetType: 'webhook_endpoint',
      targetId: endpoint.id,
      details,
    },
    now,
  );
}

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
    const current = memberOf(request);
    const body = formOf(request.body);
    const errors: FieldErrors = {};
    const form = await readEndpointForm(ctx, body, errors);
    if (hasErrors(errors)) {
      const viewer = await viewerOf(ctx, request);
      const view = { viewer, url: form.url, events: [...body.all('events')], errors };
      return sendPage(reply, 422, renderNewEndpoint(view));
    }
    const now = ctx.clock.now();
    const { endpoint, secret } = await ctx.database.transaction(async (tx) => {
      const made = await createWebhookEndpoint(tx, {
        organizationId: current.organizationId,
        url: form.url,
        eventTypes: form.events,
        now,
      });
      await audit(
        tx,
        request,
        made.endpoint,
        'webhook_endpoint.created',
        { url: form.url, events: form.events },
        now,
      );
      return made;
    });
    const viewer = await viewerOf(ctx, request);
    return sendPage(reply, 201, renderEndpointSecret({ viewer, endpoint, secret, kind: 'created' }));
  };
}

export function updateEndpoint(ctx: AppContext): Handler {
  return async (request, reply) => {
    const endpoint = await endpointOf(ctx, request);
    const body = formOf(request.body);
    const errors: FieldErrors = {};
    const form = await readEndpointForm(ctx, body, errors);
    if (hasErrors(errors)) {
      return sendEndpoint(ctx, request, reply, 422, {
        endpoint,
        errors,
        form: { url: form.url, events: [...body.all('events')] },
      });
    }
    const now = ctx.clock.now();
    await ctx.database.transaction(async (tx) => {
      const row = await updateWebhookEndpoint(
        tx,
        endpoint.id,
        { url: form.url, eventTypes: form.events },
        now,
      );
      if (!row) throw gone();
      const details = { url: form.url, events: form.events, previous_url: endpoint.url };
      await audit(tx, request, endpoint, 'webhook_endpoint.updated', details, now);
    });
    return back(reply, endpoint, 'updated');
  };
}

export function disableEndpoint(ctx: AppContext): Handler {
  return async (request, reply) => {
    const endpoint = await endpointOf(ctx, request);
    if (endpoint.status === 'enabled') {
      const now = ctx.clock.now();
      await ctx.database.transaction(async (tx) => {
        if (!(await disableWebhookEndpoint(tx, endpoint.id, 'manual', now))) throw gone();
        await audit(
          tx,
          request,
          endpoint,
          'webhook_endpoint.disabled',
          { url: endpoint.url, reason: 'manual' },
          now,
        );
      });
    }
    return back(reply, endpoint, 'disabled');
  };
}

export function enableEndpoint(ctx: AppContext): Handler {
  return async (request, reply) => {
    const endpoint = await endpointOf(ctx, request);
    if (endpoint.status !== 'enabled') {
      const now = ctx.clock.now();
      await ctx.database.transaction(async (tx) => {
        if (!(await enableWebhookEndpoint(tx, endpoint.id, now))) throw gone();
        const details = { url: endpoint.url, previous_reason: endpoint.disabledReason };
        await audit(tx, request, endpoint, 'webhook_endpoint.enabled', details, now);
      });
    }
    return back(reply, endpoint, 'enabled');
  };
}

export function rotateEndpointSecret(ctx: AppContext): Handler {
  return async (request, reply) => {
    const endpoint = await endpointOf(ctx, request);
    const now = ctx.clock.now();
    const rotated = await ctx.database.transaction(async (tx) => {
      const row = await rotateWebhookSecret(tx, endpoint.id, now);
      if (row)
        await audit(tx, request, endpoint, 'webhook_endpoint.secret_rotated', { url: endpoint.url }, now);
      return row;
    });
    // deleted by someone else between the lookup and the rotation
    if (!rotated) return seeOther(reply, '/developers');
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
    const now = ctx.clock.now();
    await ctx.database.transaction(async (tx) => {
      if (await deleteWebhookEndpoint(tx, endpoint.id)) {
        const details = { url: endpoint.url, events: endpoint.eventTypes };
        await audit(tx, request, endpoint, 'webhook_endpoint.deleted', details, now);
      }
    });
    return seeOther(reply, '/developers?done=webhook_deleted');
  };
}
