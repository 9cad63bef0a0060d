// The random tokens of invitation links, reset links and session cookies: only their SHA-256 is
// stored, so a copy of the database opens nothing.
import { randomString, sha256Hex } from '../platform/index.ts';

// 43 base62 characters: about 256 bits.
const TOKEN_LENGTH = 43;
const TOKEN_SHAPE = /^[A-Za-z0-9]{32,128}$/;

export function newToken(): { token: string; tokenHash: string } {
  const token = randomString(TOKEN_LENGTH);
  return { token, tokenHash: sha256Hex(token) };
}

/** The stored hash of a presented token, or null when it cannot be one of ours (no query needed). */
export function hashOfToken(token: string): string | null {
  return TOKEN_SHAPE.test(token) ? sha256Hex(token) : null;
}

/** `path` + token on the origin of `appUrl` (APP_URL), whatever path APP_URL carries. */
export function appLink(appUrl: URL, path: string, token: string): string {
  return `${appUrl.origin}${path}${token}`;
}
