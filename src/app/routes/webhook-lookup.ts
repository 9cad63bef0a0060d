// What the webhook pages share: the endpoint named in the path (only the member's current
// organization's; any other is the same 404 as a missing one), the form's URL and event types (the
// address rules are the actions' own, in webhooks/actions/), and the one send made right away in
// the request.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import {
  attemptDelivery,
  endpointExistsMessage,
  findWebhookEndpoint,
  type EndpointExists,
  type WebhookEndpointRow,
  type WebhookEventType,
} from '../../webhooks/index.ts';
import type { Refusal } from '../../platform/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { readChoices, readField, type FieldErrors, type FormBody } from '../form-body.ts';
import { EndpointParams, paramsOf } from '../app-input.ts';
import { WebhookEndpointForm } from '../app-forms.schema.ts';

export const DELIVERY_ID = /^whd_[A-Za-z0-9]{8,64}$/;

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
  events: WebhookEventType[];
}

/** The form's URL and event types; what is missing, too long or not on the list is an error. */
export function readEndpointForm(body: FormBody, errors: FieldErrors): EndpointForm {
  const url = readField(body, 'url', WebhookEndpointForm.properties.url, errors);
  const events = readChoices(body, 'events', WebhookEndpointForm.properties.events, errors);
  return { url, events };
}

/** An endpoint action's refusal of the form, in the form's words. */
export function endpointFormErrors(refusal: Refusal | EndpointExists): FieldErrors {
  if (refusal.refused === 'not_found') throw new PageError('not_found', 'webhook endpoint');
  if (refusal.refused === 'conflict') return { url: refusal.message };
  if (refusal.refused === 'webhook_endpoint_exists') return { url: endpointExistsMessage(refusal) };
  const errors: FieldErrors = {};
  for (const error of refusal.errors) {
    if (error.field === 'url') errors.url = `The endpoint URL ${error.message}.`;
    else errors.events = 'Choose event types from the list.';
  }
  return errors;
}

/**
 * One attempt now, in the request, instead of waiting for the job runner. attemptDelivery leases
 * the row first, so the queued job cannot send it a second time; if it fails, the retry schedule
 * carries on as usual.
 */
export async function sendNow(ctx: AppContext, deliveryId: string): Promise<void> {
  await attemptDelivery(ctx, deliveryId);
}
