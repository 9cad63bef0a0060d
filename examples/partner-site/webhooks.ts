// Verifying the service's webhooks (DESIGN.md section 2: the Standard Webhooks scheme). Any
// Standard Webhooks library does the same; this is the whole algorithm, so nothing is hidden:
// HMAC-SHA256 over `id.timestamp.body` with the bytes of the whsec_ secret, compared in constant
// time against every v1 signature in the header, and a timestamp no more than 5 minutes off.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

export type WebhookCheck = { ok: true; id: string; payload: unknown } | { ok: false; reason: string };

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Checks one delivery; `body` must be the raw request body, byte for byte. */
export function verifyWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): WebhookCheck {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) return { ok: false, reason: 'missing webhook headers' };
  if (!/^\d+$/.test(timestamp)) return { ok: false, reason: 'bad timestamp' };
  if (Math.abs(nowSeconds - Number(timestamp)) > WEBHOOK_TOLERANCE_SECONDS) {
    return { ok: false, reason: 'timestamp outside the tolerance' };
  }
  const expected = Buffer.from(signWebhook(secret, id, Number(timestamp), body).slice(3), 'base64');
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) return { ok: false, reason: 'no matching signature' };
  try {
    return { ok: true, id, payload: JSON.parse(body) };
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
}
