// Return URL and embed origin rules for checkout sessions (docs/contract.md#return-urls and
// #embed-origin). Pure functions.
import { parseOrigin } from '../auth/index.ts';
import type { FieldError } from '../platform/index.ts';

export const MAX_RETURN_URL_LENGTH = 2048;
const PLACEHOLDERS = /\{CHECKOUT_SESSION_ID\}|%7BCHECKOUT_SESSION_ID%7D/gi;
const HAS_PLACEHOLDER = /\{CHECKOUT_SESSION_ID\}|%7BCHECKOUT_SESSION_ID%7D/i;
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1']);

/**
 * Checks a return URL: absolute https (http only for localhost/127.0.0.1 with a port), at most
 * 2048 characters as the partner sent it (the contract's limit is on the field; the stored form may be
 * longer once percent-encoded), origin exactly one of the registered return URL domains. Returns
 * the problem, or null when the URL is acceptable.
 */
export function returnUrlProblem(value: string, allowedOrigins: readonly string[]): string | null {
  if (value.length === 0) return 'must not be empty; leave the field out instead';
  if (value.length > MAX_RETURN_URL_LENGTH) return `must be at most ${MAX_RETURN_URL_LENGTH} characters`;
  if (/\s/.test(value) || [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) {
    return 'must not contain spaces or control characters';
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not contain credentials';
  const local = LOCAL_HOSTS.has(url.hostname) && url.port !== '';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) {
    return 'must use https (http only for a registered http://localhost:<port> or http://127.0.0.1:<port>)';
  }
  // The text itself must read scheme://host: browsers forgive "https:host", "https:///host" and
  // "\" for "/", which other parsers (the partner's own, a proxy's) read as another host.
  if (!/^https?:\/\/[^/\\?#]+(?:[/?#]|$)/i.test(value)) return 'must be an absolute URL (scheme://host/...)';
  if (!allowedOrigins.includes(url.origin)) {
    return `origin ${url.origin} is not one of this client's return URL domains`;
  }
  return null;
}

/**
 * The URL the buyer is sent to after paying: each {CHECKOUT_SESSION_ID} (or its percent-encoded
 * form) replaced by the session id; without a placeholder, session_id=<id> is set in the query,
 * replacing any session_id already there. Everything else is kept as given.
 */
export function successUrlFor(template: string, sessionId: string): string {
  if (HAS_PLACEHOLDER.test(template)) return template.replace(PLACEHOLDERS, sessionId);
  const hashAt = template.indexOf('#');
  const beforeHash = hashAt < 0 ? template : template.slice(0, hashAt);
  const hash = hashAt < 0 ? '' : template.slice(hashAt);
  const queryAt = beforeHash.indexOf('?');
  const base = queryAt < 0 ? beforeHash : beforeHash.slice(0, queryAt);
  const query = queryAt < 0 ? '' : beforeHash.slice(queryAt + 1);
  const kept = query.split('&').filter((pair) => pair !== '' && pair.split('=')[0] !== 'session_id');
  kept.push(`session_id=${encodeURIComponent(sessionId)}`);
  return `${base}?${kept.join('&')}${hash}`;
}

/**
 * The form a return URL is stored and sent in: its WHATWG serialization (`new URL(x).href`), which
 * is what a browser requests when it follows the URL anyway. Everything outside ASCII is
 * percent-encoded as UTF-8 and an IDN host becomes punycode, so every Location header and page
 * link built from it is ASCII. Applied after the placeholders are replaced (successUrlFor): the
 * path's `{` would otherwise become `%7B`, which is still a placeholder but no longer the text
 * the partner wrote. The origin is the one returnUrlProblem checked, since both use this parser.
 */
export function storedReturnUrl(value: string): string {
  return new URL(value).href;
}

/** embed_origin must be an origin in https://host[:port] form (or a local dev origin). */
export function embedOriginProblem(value: string): string | null {
  return parseOrigin(value) === null
    ? 'must be an origin such as https://shop.example.org (https, no path; http only for localhost:<port> or 127.0.0.1:<port>)'
    : null;
}

export function collect(errors: FieldError[], field: string, problem: string | null): void {
  if (problem) errors.push({ field, message: problem });
}
