// Changes an endpoint's URL, its event types and whether it is enabled; the fields left out keep
// their values; a URL another of the organization's endpoints has is refused. Each change is audited, in one transaction: the URL and events first, then the
// status. Disabling cancels the pending deliveries; enabling starts with no failure streak.
import { recordAudit, type ActingOn } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { invalid, notThere, type Outcome } from '../../platform/index.ts';
import {
  disableWebhookEndpoint,
  enableWebhookEndpoint,
  findWebhookEndpoint,
  patchWebhookEndpoint,
  type WebhookEndpointRow,
} from '../webhook-endpoints.ts';
import {
  checkEndpointInput,
  endpointAudit,
  findEndpointFor,
  sameUrl,
  type EndpointExists,
  type EndpointInput,
} from './endpoint-checks.ts';

export interface UpdateWebhookEndpointOptions extends ActingOn, EndpointInput {
  endpointId: string;
  status?: 'enabled' | 'disabled' | undefined;
}

export async function updateWebhookEndpoint(
  ctx: AppContext,
  { endpointId, url, events, status, ...on }: UpdateWebhookEndpointOptions,
): Promise<Outcome<WebhookEndpointRow, EndpointExists>> {
  const endpoint = await findEndpointFor(ctx, on, endpointId);
  if (!endpoint) return notThere;
  const checked = await checkEndpointInput(ctx, { url, events });
  if (checked.errors.length > 0) return invalid(checked.errors);
  const now = ctx.clock.now();
  const row = await ctx.database.transaction(async (tx) => {
    const exists =
      checked.url === undefined ? null : await sameUrl(tx, endpoint.organizationId, checked.url, endpoint.id);
    if (exists) return exists;
    if (checked.url !== undefined || checked.events !== undefined) {
      const patched = await patchWebhookEndpoint(
        tx,
        endpoint.id,
        { url: checked.url, eventTypes: checked.events },
        now,
      );
      if (!patched) return undefined;
      const details = {
        ...(checked.url !== undefined && { url: checked.url, previous_url: endpoint.url }),
        ...(checked.events !== undefined && { events: checked.events }),
      };
      await recordAudit(tx, endpointAudit(on, endpoint, 'webhook_endpoint.updated', details), now);
    }
    if (status === 'disabled' && endpoint.status === 'enabled') {
      if (!(await disableWebhookEndpoint(tx, endpoint.id, 'manual', now))) return undefined;
      const details = { url: checked.url ?? endpoint.url, reason: 'manual' };
      await recordAudit(tx, endpointAudit(on, endpoint, 'webhook_endpoint.disabled', details), now);
    } else if (status === 'enabled' && endpoint.status === 'disabled') {
      if (!(await enableWebhookEndpoint(tx, endpoint.id, now))) return undefined;
      const details = { url: checked.url ?? endpoint.url, previous_reason: endpoint.disabledReason };
      await recordAudit(tx, endpointAudit(on, endpoint, 'webhook_endpoint.enabled', details), now);
    }
    return findWebhookEndpoint(tx, endpoint.id);
  });
  if (row && 'refused' in row) return row;
  return row ? { done: row } : notThere;
}
