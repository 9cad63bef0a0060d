// Deletes an endpoint with its delivery log, audited; nothing more is sent to it.
import { recordAudit, type ActingOn } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { notThere, type Outcome } from '../../platform/index.ts';
import { removeWebhookEndpoint, type WebhookEndpointRow } from '../webhook-endpoints.ts';
import { endpointAudit, findEndpointFor } from './endpoint-checks.ts';

export interface DeleteWebhookEndpointOptions extends ActingOn {
  endpointId: string;
}

export async function deleteWebhookEndpoint(
  ctx: AppContext,
  { endpointId, ...on }: DeleteWebhookEndpointOptions,
): Promise<Outcome<WebhookEndpointRow>> {
  const endpoint = await findEndpointFor(ctx, on, endpointId);
  if (!endpoint) return notThere;
  const now = ctx.clock.now();
  const deleted = await ctx.database.transaction(async (tx) => {
    if (!(await removeWebhookEndpoint(tx, endpoint.id))) return false;
    const details = { url: endpoint.url, events: endpoint.eventTypes };
    await recordAudit(tx, endpointAudit(on, endpoint, 'webhook_endpoint.deleted', details), now);
    return true;
  });
  return deleted ? { done: endpoint } : notThere;
}
