// Partner access tokens: `pat_` + an AES-256-GCM sealed {client, scopes, expiry}. Opaque to
// partners, unforgeable without the service key, and checkable with one read of the client row
// (so revocation and removed scopes still act on the next request). The organizer app's sign-in
// tokens use another prefix and another key, so one can never pass for the other.
import { open, seal } from '../platform/index.ts';
import { ALL_SCOPES, type Scope } from './scopes.ts';

export const ACCESS_TOKEN_PREFIX = 'pat_';
export const PUBLISHABLE_KEY_PREFIX = 'pk_';
export const CLIENT_ID_PREFIX = 'cli_';

// Sealed plaintext: "1.<client id>.<scope bits>.<expiry epoch seconds>", kept short on purpose.
function scopeBits(scopes: readonly Scope[]): number {
  return ALL_SCOPES.reduce((bits, s, i) => (scopes.includes(s) ? bits | (1 << i) : bits), 0);
}

export function mintAccessToken(key: Buffer, clientId: string, scopes: Scope[], expiresAt: Date): string {
  const plain = `1.${clientId}.${scopeBits(scopes)}.${Math.floor(expiresAt.getTime() / 1000)}`;
  return ACCESS_TOKEN_PREFIX + seal(key, plain);
}

export interface AccessTokenClaims {
  readonly clientId: string;
  readonly scopes: readonly Scope[];
  readonly expiresAt: Date;
}

// Tokens already opened, per key: a partner sends the same token for an hour, and opening it again
// on every request would cost more than the rest of the check. Only genuine tokens are kept (nobody
// can make one without the key), at most OPENED_LIMIT of them; expiry is checked by the caller.
const OPENED_LIMIT = 10_000;
const openedByKey = new WeakMap<Buffer, Map<string, AccessTokenClaims>>();

/** Opens a token; null when it is not one of ours (malformed, tampered, other key). */
export function readAccessToken(key: Buffer, token: string): AccessTokenClaims | null {
  let opened = openedByKey.get(key);
  if (!opened) openedByKey.set(key, (opened = new Map()));
  const known = opened.get(token);
  if (known) return known;
  const claims = openAccessToken(key, token);
  if (claims) {
    if (opened.size >= OPENED_LIMIT) opened.delete(opened.keys().next().value!);
    opened.set(token, claims);
  }
  return claims;
}

function openAccessToken(key: Buffer, token: string): AccessTokenClaims | null {
  if (!token.startsWith(ACCESS_TOKEN_PREFIX) || token.length > 1024) return null;
  const plain = open(key, token.slice(ACCESS_TOKEN_PREFIX.length));
  if (plain === null) return null;
  const parts = plain.split('.');
  if (parts.length !== 4 || parts[0] !== '1' || !/^\d+$/.test(parts[2]!) || !/^\d+$/.test(parts[3]!))
    return null;
  const bits = Number(parts[2]);
  return Object.freeze({
    clientId: parts[1]!,
    scopes: Object.freeze(ALL_SCOPES.filter((_s, i) => (bits & (1 << i)) !== 0)),
    expiresAt: new Date(Number(parts[3]) * 1000),
  });
}
