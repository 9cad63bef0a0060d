// Registers a receiver URL for some event types (order.paid when none are named), audited. The
// answer carries the signing secret, which is shown this once. A URL the organization already
// has is refused: its receiver verifies with the first endpoint's secret, not a second one's.
import { recordAudit, type Actor } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { invalid, type Outcome } from '../../platform/index.ts';
import { insertWebhookEndpoint, type WebhookEndpointRow } from '../webhook-endpoints.ts';
import { checkEndpointInput, endpointAudit, sameUrl, type EndpointExists } from './endpoint-checks.ts';

export interface CreateWebhookEndpointOptions {
  actor: Actor;
  organizationId: string;
  url: string;
  events?: string[] | undefined;
}

export async function createWebhookEndpoint(
  ctx: AppContext,
  { actor, organizationId, ...input }: CreateWebhookEndpointOptions,
): Promise<Outcome<{ endpoint: WebhookEndpointRow; secret: string }, EndpointExists>> {
  const checked = await checkEndpointInput(ctx, input);
  if (checked.errors.length > 0) return invalid(checked.errors);
  const url = checked.url!;
  const eventTypes = checked.events ?? ['order.paid'];
  const now = ctx.clock.now();
  return ctx.database.transaction(async (tx) => {
    const exists = await sameUrl(tx, organizationId, url);
    if (exists) return exists;
    const made = await insertWebhookEndpoint(tx, { organizationId, url, eventTypes, now });
    const entry = endpointAudit({ actor }, made.endpoint, 'webhook_endpoint.created', {
      url,
      events: eventTypes,
    });
    await recordAudit(tx, entry, now);
    return { done: made };
  });
}
