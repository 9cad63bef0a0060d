// What bounds one client of the hosted checkout page: the keyed hash of its network that its
// orders carry for the per-IP hold limit (orders/hold-limits.ts counts them), and the limit on
// payment prompts per phone number. The simulator's test numbers are exempt while the simulator
// is the provider, so tests and demos can reuse them.
import { createHmac, hkdfSync } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { AppContext } from '../context.ts';
import { msg } from './messages/current.ts';
import { DEFAULT_SCENARIO, scenarioFor } from '../payments/index.ts';
import type { ServiceKeys } from '../platform/index.ts';

/** The window of PROMPT_LIMIT_PER_PHONE. */
const PROMPT_WINDOW_SECONDS = 600;

const derived = new WeakMap<ServiceKeys, Buffer>();

/**
 * A key of its own for these hashes, derived from the service's cursor key (kept in the
 * database, so every process derives the same one).
 */
function hashKey(keys: ServiceKeys): Buffer {
  let key = derived.get(keys);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', keys.cursor, Buffer.alloc(0), 'checkout buyer limits', 32));
    derived.set(keys, key);
  }
  return key;
}

function keyedHash(keys: ServiceKeys, purpose: string, value: string): string {
  return createHmac('sha256', hashKey(keys)).update(`${purpose}\n${value}`).digest('base64url').slice(0, 22);
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a trailing dotted IPv4 converted). */
function ipv6Groups(address: string): number[] {
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/**
 * The network a client IP stands for: an IPv4 address itself (an IPv4-mapped IPv6 address as
 * IPv4), an IPv6 address its /64, which one subscriber gets whole and can rotate through.
 */
export function clientNetwork(ip: string): string {
  const address = ip.replace(/%.*$/, '').toLowerCase();
  if (isIPv4(address) || !isIPv6(address)) return address;
  const g = ipv6Groups(address);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    return [g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255].join('.');
  }
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(':')}::/64`;
}

/** The value of orders.client_ip_hash for an order placed from `ip`: no address is stored. */
export function hashClientIp(keys: ServiceKeys, ip: string): string {
  return keyedHash(keys, 'client network', clientNetwork(ip));
}

/** True for the simulator's scenario numbers (docs/partners/testing.md), and only with the simulator. */
export function isExemptTestNumber(ctx: AppContext, msisdn: string): boolean {
  return ctx.config.payments.provider === 'simulator' && scenarioFor(msisdn) !== DEFAULT_SCENARIO;
}

export type PromptSlot = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Counts one payment prompt to `msisdn` (256…) from the hosted page, unless the number has had
 * PROMPT_LIMIT_PER_PHONE in the last 10 minutes. One sustained prompt per window on top of a burst
 * of the limit: no 10 minutes ever see more than the limit. The counter is the rate limiter's,
 * shared by every process through Redis when REDIS_URL is set; its key is a hash, not the number.
 */
export async function claimPromptSlot(ctx: AppContext, msisdn: string): Promise<PromptSlot> {
  if (isExemptTestNumber(ctx, msisdn)) return { allowed: true };
  const result = await ctx.limiter.hit(`prompt:${keyedHash(ctx.keys, 'phone', msisdn)}`, {
    rate: 1 / PROMPT_WINDOW_SECONDS,
    burst: ctx.config.promptLimitPerPhone,
  });
  return result.allowed ? { allowed: true } : { allowed: false, retryAfterSeconds: result.retryAfter };
}

/** 45 -> "45 seconds", 61 -> "2 minutes": a wait as a buyer reads it, rounded up, in their language. */
export function formatWait(seconds: number): string {
  const m = msg();
  return seconds < 60 ? m.status.seconds(seconds) : m.limits.minutes(Math.ceil(seconds / 60));
}

/**
 * The page's words for hold_limit_reached. The connection may be shared (mobile carriers put many
 * phones behind one address), so they blame nobody and say what still fits.
 */
export function holdLimitMessage(options: {
  held: number;
  limit: number;
  retryAfterSeconds: number;
}): string {
  const m = msg().limits;
  const room = Math.max(0, options.limit - options.held);
  const wait = m.tryAgainIn(formatWait(options.retryAfterSeconds));
  if (room > 0) return m.onlyMoreHeld(room, room === 1 ? m.oneTicket : m.orFewer(room), wait);
  return m.tooManyHeld(wait);
}

/** The page's words for prompt_limit_reached. */
export function promptLimitMessage(retryAfterSeconds: number): string {
  const m = msg().limits;
  return m.tooManyPrompts(m.tryAgainIn(formatWait(retryAfterSeconds)));
}
