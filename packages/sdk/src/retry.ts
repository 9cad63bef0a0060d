// When and how long to wait before retrying a call: network errors, 5xx and 429 are retried with
// exponential backoff and jitter, or exactly after the answer's Retry-After when it has one.

export const DEFAULT_MAX_RETRIES = 2;
const BASE_DELAY_MS = 500;
const MAX_BACKOFF_MS = 8_000;

/** Statuses worth another try. 409 idempotency_key_in_use is handled by the caller (same key still running). */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its weekday and month; Date.parse alone would also take "-1" or "2026".
  const at = /[a-z]{3}/i.test(text) ? Date.parse(text) : NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Delay before retry number `retry` (0 for the first): the server's Retry-After when given, else
 * half the exponential step plus a random part of the other half, so many clients spread out.
 */
export function backoffDelay(retry: number, retryAfterMs?: number, random = Math.random): number {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const step = Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** retry);
  return Math.round(step / 2 + (random() * step) / 2);
}

/** Waits `ms`; an abort of the call ends the wait with the signal's reason. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
