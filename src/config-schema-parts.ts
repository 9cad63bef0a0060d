// The builders of config-schema.ts's variables, for the shapes that repeat.
import { Type, type TNumber } from 'typebox';

// A refinement's message is what the variable accepts, in the
// words that follow "must be"; `writeOnly` marks a secret, whose value an error never repeats.

export function positive(fallback: number, description: string) {
  return Type.Number({ exclusiveMinimum: 0, default: fallback, description });
}

export function flag(fallback: boolean, description: string) {
  return Type.Boolean({ default: fallback, description });
}

export function httpUrl(description: string) {
  return Type.Refine(Type.String({ description }), isHttpUrl, () => 'an absolute http(s) URL');
}

export function origin(fallback: string, description: string) {
  return Type.Refine(
    Type.String({ default: fallback, description }),
    (text) => isHttpUrl(text) && isOrigin(new URL(text)),
    () => `an absolute http(s) URL without a path, such as ${fallback}`,
  );
}

/** A token bucket: `${prefix}_RATE` (per second) and `${prefix}_BURST`. */
export function rateLimit<P extends string>(prefix: P, fallback: RateLimitSetting, description: string) {
  return {
    [`${prefix}_RATE`]: positive(fallback.rate, `${description}: requests per second, sustained`),
    [`${prefix}_BURST`]: positive(fallback.burst, `${description}: requests at once, the bucket size`),
  } as Record<`${P}_RATE` | `${P}_BURST`, TNumber>;
}

function isHttpUrl(text: string): boolean {
  const url = URL.parse(text);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:');
}

function isOrigin(url: URL): boolean {
  return url.pathname === '/' && !url.search && !url.hash;
}

export interface RateLimitSetting {
  /** sustained requests per second */
  rate: number;
  /** bucket size: how many may arrive at once */
  burst: number;
}
