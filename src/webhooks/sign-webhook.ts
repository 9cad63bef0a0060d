// Standard Webhooks signing (https://www.standardwebhooks.com): the signed content is
// `webhook-id.webhook-timestamp.body`, HMAC-SHA256 with the base64 key after `whsec_`, sent as
// `v1,<base64>`. During a secret rotation both secrets sign, space-separated, as the spec allows.
import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

const PREFIX = 'whsec_';

/** whsec_ + base64 of 32 random bytes (the spec asks for 24 to 64). */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/** Keys made from secrets: a key from raw bytes costs about twice the HMAC of a whole body. */
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 1000;

function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.clear();
    key = createSecretKey(
      Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64'),
    );
    keys.set(secret, key);
  }
  return key;
}

/** One `v1,<signature>` for one secret. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret))
    .update(`${id}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers for one send. */
export function webhookHeaders(input: {
  id: string;
  at: Date;
  body: string;
  secrets: string[];
}): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const timestamp = Math.floor(input.at.getTime() / 1000);
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': input.secrets.map((s) => signWebhook(s, input.id, timestamp, input.body)).join(' '),
  };
}
