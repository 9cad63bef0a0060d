// Prefixed random identifiers and secrets (base62, unbiased).
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random string over an alphabet, using rejection sampling so every character is equally likely. */
export function randomString(length: number, alphabet = ALPHABET): string {
  const max = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < max) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

export type IdPrefix =
  | 'org'
  | 'evt'
  | 'tt'
  | 'cs'
  | 'ord'
  | 'reg'
  | 'cli'
  | 'pk'
  | 'sk'
  | 'pat'
  | 'req'
  | 'whe'
  | 'whd'
  | 'whsec'
  | 'msg'
  | 'job'
  | 'adm'
  | 'pay';

/** `prefix_` + 24 base62 characters (about 143 bits). Secrets use a longer body. */
export function newId(prefix: IdPrefix, length = 24): string {
  return `${prefix}_${randomString(length)}`;
}

export function newSecret(prefix: IdPrefix): string {
  return newId(prefix, 40);
}
