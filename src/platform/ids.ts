// Prefixed random identifiers and secrets (base62, unbiased).
import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn from the CSPRNG 4 KB at a time and each byte is used once: one call
// per id would cost more than the rest of a cached request.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** Random string over an alphabet, using rejection sampling so every character is equally likely. */
export function randomString(length: number, alphabet = ALPHABET): string {
  const max = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < max) out += alphabet[byte % alphabet.length];
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
  | 'pay'
  | 'rfd'
  | 'mem'
  | 'inv'
  | 'ast'
  | 'mail'
  | 'era'
  | 'tkt'
  | 'chk';

/** `prefix_` + 24 base62 characters (about 143 bits). Secrets use a longer body. */
export function newId(prefix: IdPrefix, length = 24): string {
  return `${prefix}_${randomString(length)}`;
}

export function newSecret(prefix: IdPrefix): string {
  return newId(prefix, 40);
}
