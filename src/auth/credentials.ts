// Which partner credential a request carries, read in one place: the API host authenticates what
// this finds and the SITE and APP hosts refuse it (refuse-partner-credentials.ts), so no spelling of
// a header can be a credential to one and pass unnoticed by the other. Every header line is read
// (rawHeaders), so a repeated header cannot hide a credential behind a first, harmless value.
import { ACCESS_TOKEN_PREFIX, CLIENT_ID_PREFIX, PUBLISHABLE_KEY_PREFIX } from './tokens.ts';

export const PUBLISHABLE_KEY_HEADER = 'x-service-publishable-key';

/** Client secrets (clients.ts newSecret('sk')): a secret sent as a bearer token is a credential too. */
const CLIENT_SECRET_PREFIX = 'sk_';

/** Prefixes of what a partner holds; any of them as a bearer token or Basic user is a partner credential. */
const PARTNER_PREFIXES = [
  ACCESS_TOKEN_PREFIX,
  PUBLISHABLE_KEY_PREFIX,
  CLIENT_SECRET_PREFIX,
  CLIENT_ID_PREFIX,
];

/** One Authorization header line, read. */
export type AuthorizationValue =
  /** `token` is everything after the scheme and its whitespace: one word when well formed */
  | { scheme: 'bearer'; token: string }
  /** the user part of `base64(user:password)`, form-URL-decoded as the token endpoint does */
  | { scheme: 'basic'; user: string }
  | { scheme: 'other' };

export interface RequestCredentials {
  /** one entry per Authorization line; empty when none was sent */
  authorization: AuthorizationValue[];
  /** one entry per X-Service-Publishable-Key line, as sent; empty when none was sent */
  publishableKeys: string[];
}

/** The headers of a request as sent, line by line. */
export interface CredentialSource {
  headers: Record<string, string | string[] | undefined>;
  raw?: { rawHeaders?: string[] };
}

// Any case of the scheme, then any run of whitespace (a tab included) before the credential.
const SCHEME = /^([A-Za-z]+)\s+([^]*)$/;

function formDecode(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return part; // not form-encoded: taken as it is
  }
}

/** Reads one Authorization value: Bearer (the token) or Basic (the user), any case of the scheme. */
export function parseAuthorization(value: string): AuthorizationValue {
  const match = SCHEME.exec(value.trim());
  if (!match) return { scheme: 'other' };
  const scheme = match[1]!.toLowerCase();
  const rest = match[2]!.trim();
  if (scheme === 'bearer') return { scheme: 'bearer', token: rest };
  if (scheme === 'basic') {
    // RFC 7617 with RFC 6749 2.3.1: base64 of "id:secret", each part form-URL-encoded first.
    const decoded = Buffer.from(rest, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return { scheme: 'basic', user: formDecode(colon < 0 ? decoded : decoded.slice(0, colon)) };
  }
  return { scheme: 'other' };
}

function headerLines(source: CredentialSource, name: string): string[] {
  const raw = source.raw?.rawHeaders;
  if (raw) {
    const lines: string[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) lines.push(raw[i + 1]!);
    return lines;
  }
  const value = source.headers[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** Every credential-bearing header of a request, read. */
export function readRequestCredentials(source: CredentialSource): RequestCredentials {
  return {
    authorization: headerLines(source, 'authorization').map(parseAuthorization),
    publishableKeys: headerLines(source, PUBLISHABLE_KEY_HEADER),
  };
}

function isPartnerAuthorization(value: AuthorizationValue): boolean {
  const held = value.scheme === 'bearer' ? value.token : value.scheme === 'basic' ? value.user : '';
  return PARTNER_PREFIXES.some((prefix) => held.startsWith(prefix));
}

/**
 * Whether a request carries a partner credential, valid or not: an X-Service-Publishable-Key
 * header (any value), or an Authorization header holding a partner token, key, secret or client id
 * (as a bearer token or as Basic client credentials).
 */
export function carriesPartnerCredential(credentials: RequestCredentials): boolean {
  return credentials.publishableKeys.length > 0 || credentials.authorization.some(isPartnerAuthorization);
}
