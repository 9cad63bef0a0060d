// The endpoint a webhook admin route names: its id checked (400), then looked up (404).
import { assertId } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../platform/index.ts';
import { findWebhookEndpoint, type WebhookEndpointRow } from '../../webhooks/index.ts';

export async function endpointOr404(ctx: AppContext, id: string): Promise<WebhookEndpointRow> {
  assertId(id, 'whe', 'webhook endpoint');
  const endpoint = await findWebhookEndpoint(ctx.database.db, id);
  if (!endpoint) throw notFound('webhook endpoint');
  return endpoint;
}
