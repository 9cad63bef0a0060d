// What the webhook pages share: the endpoint named in the path (only the member's current
// organization's; any other is the same 404 as a missing one), the form's URL and event types
// checked as the admin API checks them, and the one send made right away in the request.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { attemptDelivery } from '../../webhooks/deliver-webhook.ts';
import {
  checkEndpointUrl,
  checkEventTypes,
  findWebhookEndpoint,
  type WebhookEndpointRow,
} from '../../webhooks/webhook-endpoints.ts';
import { webhookRuntime } from '../../webhooks/webhook-runtime.ts';
import { memberOf, PageError } from '../app-access.ts';
import { readField, type FieldErrors, type FormBody } from '../form-body.ts';
import { EndpointParams, paramsOf } from '../app-input.ts';
import { WebhookEndpointForm } from '../app-forms.schema.ts';

export const DELIVERY_ID = /^whd_[A-Za-z0-9]{8,64}$/;
/** a little over the address policy's own limit, so its message is the one shown */

/** The endpoint in the path (`:endpointId`) if it belongs to the member's current organization. */
export async function endpointOf(ctx: AppContext, request: FastifyRequest): Promise<WebhookEndpointRow> {
  const { endpointId } = paramsOf(request, EndpointParams);
  const current = memberOf(request);
  const endpoint = await findWebhookEndpoint(ctx.database.db, endpointId);
  if (!endpoint || endpoint.organizationId !== current.organizationId) {
    throw new PageError('not_found', 'webhook endpoint');
  }
  return endpoint;
}

export interface EndpointForm {
  url: string;
  events: string[];
}

/** The URL (resolved and checked like the admin API does) and the event types of a form. */
export async function readEndpointForm(
  ctx: AppContext,
  body: FormBody,
  errors: FieldErrors,
): Promise<EndpointForm> {
  const typed = readField(body, 'url', WebhookEndpointForm.properties.url, errors);
  let url = typed;
  if (!errors.url) {
    const checked = await checkEndpointUrl(webhookRuntime(ctx), typed);
    if (checked.ok) url = checked.url;
    else errors.url = `The endpoint URL ${checked.message}.`;
  }
  const given = [...body.all('events')].slice(0, 20);
  const { types, problems } = checkEventTypes(given);
  if (given.length === 0) errors.events = 'Choose at least one event type.';
  else if (problems.length > 0) errors.events = 'Choose event types from the list.';
  return { url, events: types };
}

/**
 * One attempt now, in the request, instead of waiting for the job runner. attemptDelivery leases
 * the row first, so the queued job cannot send it a second time; if it fails, the retry schedule
 * carries on as usual.
 */
export async function sendNow(ctx: AppContext, deliveryId: string): Promise<void> {
  await attemptDelivery(ctx, deliveryId);
}
