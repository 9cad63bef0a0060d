// When to try a delivery again, and what an answer means for the delivery and its endpoint.
// Pure functions of their inputs, so the schedule and the rules are table-tested.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * After the first attempt, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (~3.1 days), as
 * docs/partners/webhooks.md#retries-and-disabling promises partners.
 */
export const RETRY_SCHEDULE_MS = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
] as const;

/** The first attempt plus one per step of the schedule. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;

/** Jitter only lengthens a delay (up to 10 %), so the whole schedule never drops below 3 days. */
const JITTER = 0.1;

/** A receiver's Retry-After may slow us down, never speed us up, and never past a day. */
const RETRY_AFTER_CAP_MS = DAY;

/** An endpoint failing this long without a single success is disabled. */
const DISABLE_AFTER_FAILING_MS = 5 * DAY;

/** How long an old secret keeps signing after a rotation. */
export const SECRET_OVERLAP_MS = DAY;

/**
 * Delay before the next attempt after `attempts` attempts have failed (1-based), or null when the
 * schedule is used up. `scale` shrinks real time (WEBHOOK_TIME_SCALE); jitter spreads retries of
 * many deliveries that failed together.
 */
export function retryDelayMs(
  attempts: number,
  options: { retryAfterMs?: number | null; scale?: number; random?: () => number } = {},
): number | null {
  if (attempts < 1 || attempts >= MAX_ATTEMPTS) return null;
  const scheduled = RETRY_SCHEDULE_MS[attempts - 1]! * (1 + JITTER * (options.random ?? Math.random)());
  const asked = Math.min(options.retryAfterMs ?? 0, RETRY_AFTER_CAP_MS);
  return Math.round(Math.max(scheduled, asked) * (options.scale ?? 1));
}

/** Retry-After as delta-seconds or an HTTP date (RFC 9110 10.2.3), in ms from `now`; null if absent or unusable. */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * SECOND;
  // An HTTP date names its day and zone (Sun, 06 Nov 1994 08:49:37 GMT); a bare "-5" is not one.
  const at = /^[A-Za-z]{3},/.test(trimmed) ? Date.parse(trimmed) : NaN;
  if (!Number.isFinite(at)) return null;
  return Math.max(0, at - now.getTime());
}

type EndpointEffect =
  /** a success: the endpoint is healthy again */
  | 'healthy'
  /** a failure; the endpoint keeps trying */
  | 'failing'
  /** 410 Gone: the receiver says this URL is no more */
  | 'disable_gone'
  /** five days of failures without one success */
  | 'disable_failing';

export interface AttemptOutcome {
  delivery: 'delivered' | 'pending' | 'failed';
  nextAttemptAt: Date | null;
  endpoint: EndpointEffect;
}

/**
 * What one attempt's answer means. `status` is the HTTP status, or null when there was none
 * (timeout, connection refused, address not allowed). `attempts` counts this attempt.
 */
export function decideOutcome(input: {
  status: number | null;
  attempts: number;
  failingSince: Date | null;
  now: Date;
  retryAfterMs?: number | null;
  scale?: number;
  random?: () => number;
}): AttemptOutcome {
  const { status, now } = input;
  if (status !== null && status >= 200 && status < 300) {
    return { delivery: 'delivered', nextAttemptAt: null, endpoint: 'healthy' };
  }
  if (status === 410) return { delivery: 'failed', nextAttemptAt: null, endpoint: 'disable_gone' };
  const failingFor = input.failingSince ? now.getTime() - input.failingSince.getTime() : 0;
  if (failingFor >= DISABLE_AFTER_FAILING_MS) {
    return { delivery: 'failed', nextAttemptAt: null, endpoint: 'disable_failing' };
  }
  const delay = retryDelayMs(input.attempts, {
    retryAfterMs: input.retryAfterMs ?? null,
    scale: input.scale ?? 1,
    ...(input.random && { random: input.random }),
  });
  if (delay === null) return { delivery: 'failed', nextAttemptAt: null, endpoint: 'failing' };
  return { delivery: 'pending', nextAttemptAt: new Date(now.getTime() + delay), endpoint: 'failing' };
}
