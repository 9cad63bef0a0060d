// Verifying the service's webhooks (Standard Webhooks) with the standardwebhooks package: the
// signature over the raw body, the 5-minute timestamp window, then the typed event.
import { Webhook } from 'standardwebhooks';
import { WebhookVerificationError } from './errors.ts';
import type { WebhookEvent } from './types.ts';

/** Node's IncomingHttpHeaders, a fetch Headers, or a plain object. */
export type WebhookHeaders =
  Headers | Record<string, string | string[] | undefined> | { get(name: string): string | null };

const NAMES = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function pick(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of NAMES) {
    let value: string | string[] | null | undefined;
    if (typeof headers.get === 'function') value = (headers as { get(n: string): string | null }).get(name);
    else {
      const record = headers as Record<string, string | string[] | undefined>;
      const key = Object.keys(record).find((k) => k.toLowerCase() === name);
      value = key === undefined ? undefined : record[key];
    }
    const first = Array.isArray(value) ? value[0] : value;
    if (!first) throw new WebhookVerificationError(`missing ${name} header`);
    out[name] = first;
  }
  return out;
}

/**
 * Verifies one delivery and returns its event. `rawBody` must be the request body exactly as
 * received (verify before parsing JSON). Throws WebhookVerificationError when it does not verify.
 * Deduplicate on the webhook-id header: a delivery can come more than once.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
): WebhookEvent {
  const body = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
  let payload: unknown;
  try {
    payload = new Webhook(secret).verify(body, pick(headers));
  } catch (cause) {
    if (cause instanceof WebhookVerificationError) throw cause;
    throw new WebhookVerificationError(cause instanceof Error ? cause.message : 'invalid webhook', { cause });
  }
  const event = payload as Partial<WebhookEvent> | null;
  if (!event || typeof event.type !== 'string' || typeof event.data !== 'object' || event.data === null) {
    throw new WebhookVerificationError('the body is not a webhook event');
  }
  return event as WebhookEvent;
}

export const webhooks = { verify: verifyWebhook };
