// A new signing secret, audited (never with a secret in it). The old one keeps signing alongside
// it for 24 hours, so a receiver can switch without losing a delivery.
import { recordAudit, type ActingOn } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { notThere, type Outcome } from '../../platform/index.ts';
import { replaceWebhookSecret, type WebhookEndpointRow } from '../webhook-endpoints.ts';
import { endpointAudit, findEndpointFor } from './endpoint-checks.ts';

export interface RotateWebhookSecretOptions extends ActingOn {
  endpointId: string;
}

export async function rotateWebhookSecret(
  ctx: AppContext,
  { endpointId, ...on }: RotateWebhookSecretOptions,
): Promise<Outcome<{ endpoint: WebhookEndpointRow; secret: string }>> {
  const endpoint = await findEndpointFor(ctx, on, endpointId);
  if (!endpoint) return notThere;
  const now = ctx.clock.now();
  const rotated = await ctx.database.transaction(async (tx) => {
    const row = await replaceWebhookSecret(tx, endpoint.id, now);
    if (row) {
      const entry = endpointAudit(on, endpoint, 'webhook_endpoint.secret_rotated', { url: endpoint.url });
      await recordAudit(tx, entry, now);
    }
    return row;
  });
  return rotated ? { done: rotated } : notThere;
}
