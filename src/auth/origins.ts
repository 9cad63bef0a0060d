// Origins as the allowlists hold them: scheme://host[:port], lower-case host, no path.

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1']);

/**
 * Parses an origin string strictly. https origins are accepted for any host; http only for
 * localhost and 127.0.0.1 with an explicit port (local development origins include their port:
 * docs/contract.md#publishable-keys).
 * Returns the canonical form, or null.
 */
export function parseOrigin(value: string): string | null {
  if (typeof value !== 'string' || value.length > 2048 || value !== value.trim()) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.username || url.password) return null;
  if (url.pathname !== '/' || url.search || url.hash) return null;
  // Nothing beyond the origin itself: no trailing slash, no (even empty) query or fragment.
  if (value.endsWith('/') || /[?#]/.test(value)) return null;
  if (url.protocol === 'https:') return url.origin;
  if (url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname) && url.port !== '') return url.origin;
  return null;
}
