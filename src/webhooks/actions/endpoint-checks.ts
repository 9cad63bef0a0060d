// What every webhook endpoint action checks of its input, and the endpoint it acts on, found within
// the actor's organization.
import { withinReach, type ActingOn } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { ApiError, refusalError, type FieldError, type Refusal, type Tx } from '../../platform/index.ts';
import {
  checkEndpointUrl,
  checkEventTypes,
  endpointAt,
  findWebhookEndpoint,
  lockEndpointList,
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpointRow,
} from '../webhook-endpoints.ts';

export interface EndpointInput {
  url?: string | undefined;
  events?: string[] | undefined;
}

/** The URL as it will be stored and the event types without duplicates, or the fields' errors. */
export async function checkEndpointInput(
  ctx: AppContext,
  input: EndpointInput,
): Promise<{ url?: string; events?: string[]; errors: FieldError[] }> {
  const errors: FieldError[] = [];
  let url: string | undefined;
  if (input.url !== undefined) {
    const checked = await checkEndpointUrl(ctx.webhooks, input.url);
    if (checked.ok) url = checked.url;
    else errors.push({ field: 'url', message: checked.message });
  }
  let events: string[] | undefined;
  if (input.events !== undefined) {
    const { types, problems } = checkEventTypes(input.events);
    if (input.events.length === 0)
      errors.push({ field: 'events', message: 'must name at least one event type' });
    for (const { index } of problems) {
      errors.push({
        field: `events[${index}]`,
        message: `is not an event type; use any of: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
      });
    }
    events = types;
  }
  return { ...(url !== undefined && { url }), ...(events !== undefined && { events }), errors };
}

/** Refused: the organization already has an endpoint at this URL (a second would get another secret). */
export interface EndpointExists {
  refused: 'webhook_endpoint_exists';
  endpointId: string;
  url: string;
}

/** The refusal's words, the same on every interface. */
export function endpointExistsMessage({ endpointId, url }: EndpointExists): string {
  return `A webhook endpoint for ${url} already exists: ${endpointId}. Change that one (or rotate its secret) rather than registering the URL twice.`;
}

/** The API's answer to an endpoint action's refusal. */
export function endpointRefusalError(refusal: Refusal | EndpointExists, what = 'webhook endpoint'): ApiError {
  if (refusal.refused === 'webhook_endpoint_exists') {
    return new ApiError('webhook_endpoint_exists', endpointExistsMessage(refusal));
  }
  return refusalError(refusal, what);
}

/** In `tx`, with the organization's list held until it ends: the endpoint other than `exceptId` at `url`. */
export async function sameUrl(
  tx: Tx,
  organizationId: string,
  url: string,
  exceptId?: string,
): Promise<EndpointExists | null> {
  await lockEndpointList(tx, organizationId);
  const existing = await endpointAt(tx, organizationId, url, exceptId);
  return existing ? { refused: 'webhook_endpoint_exists', endpointId: existing.id, url } : null;
}

export async function findEndpointFor(
  ctx: AppContext,
  on: ActingOn,
  endpointId: string,
): Promise<WebhookEndpointRow | undefined> {
  return withinReach(on, await findWebhookEndpoint(ctx.database.db, endpointId));
}

/** An audit entry of a change to the endpoint. */
export function endpointAudit(
  on: ActingOn,
  endpoint: WebhookEndpointRow,
  action:
    | 'webhook_endpoint.created'
    | 'webhook_endpoint.updated'
    | 'webhook_endpoint.enabled'
    | 'webhook_endpoint.disabled'
    | 'webhook_endpoint.secret_rotated'
    | 'webhook_endpoint.deleted',
  details: Record<string, unknown>,
) {
  return {
    organizationId: endpoint.organizationId,
    actor: on.actor,
    action,
    targetType: 'webhook_endpoint' as const,
    targetId: endpoint.id,
    details,
  };
}
