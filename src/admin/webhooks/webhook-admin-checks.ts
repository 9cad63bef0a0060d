// What several admin webhook routes check before acting: event types and the URL (400 with the
// field), the endpoint by id (404), and that it is enabled (409).
import { assertId } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { ApiError, notFound, validationError, type FieldError } from '../../platform/errors.ts';
import {
  checkEndpointUrl,
  checkEventTypes,
  findWebhookEndpoint,
  WEBHOOK_EVENT_TYPES,
  type WebhookEndpointRow,
} from '../../webhooks/webhook-endpoints.ts';
import { webhookRuntime } from '../../webhooks/webhook-runtime.ts';

export function eventTypesOr400(events: string[] | undefined): string[] | undefined {
  if (events === undefined) return undefined;
  const { types, problems } = checkEventTypes(events);
  if (problems.length > 0) {
    throw validationError(
      problems.map(({ index }) => ({
        field: `events[${index}]`,
        message: `is not an event type; use any of: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
      })),
    );
  }
  return types;
}

export async function urlOr400(ctx: AppContext, raw: string | undefined): Promise<string | undefined> {
  if (raw === undefined) return undefined;
  const checked = await checkEndpointUrl(webhookRuntime(ctx), raw);
  if (!checked.ok) {
    const errors: FieldError[] = [{ field: 'url', message: checked.message }];
    throw validationError(errors, `url ${checked.message}`);
  }
  return checked.url;
}

export async function endpointOr404(ctx: AppContext, id: string): Promise<WebhookEndpointRow> {
  assertId(id, 'whe', 'webhook endpoint');
  const endpoint = await findWebhookEndpoint(ctx.database.db, id);
  if (!endpoint) throw notFound('webhook endpoint');
  return endpoint;
}

export function disabledConflict(): ApiError {
  return new ApiError('conflict', 'This webhook endpoint is disabled; enable it first.');
}
