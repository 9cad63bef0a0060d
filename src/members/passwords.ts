// Members' passwords: the rules a new one must meet, and scrypt hashing (node:crypto, no native
// build) stored as a self-describing string, so that the cost can be raised later and old hashes
// still verify.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { LONE_SURROGATE } from '../platform/index.ts';

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;

const COST_LOG2 = 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

// scrypt needs 128 * N * r bytes (32 MiB here); node's default cap is exactly that, which it
// refuses, so allow twice the largest cost verifyPassword accepts.
const MAX_COST_LOG2 = 17;
const maxmemFor = (costLog2: number, blockSize: number) => 2 * 128 * 2 ** costLog2 * blockSize;

const STORED = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]{16,64})\$([A-Za-z0-9_-]{32,128})$/;

const isControl = (c: string) => c.codePointAt(0)! < 0x20 || c === '\u007f';

/** A message saying what is wrong with a new password, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  // Counted in characters as a person sees them (code points), not UTF-16 units.
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `Password must be at least ${PASSWORD_MIN_LENGTH} characters long`;
  if (length > PASSWORD_MAX_LENGTH) return `Password must be at most ${PASSWORD_MAX_LENGTH} characters long`;
  if (password.trim() === '') return 'Password must not be only spaces';
  if ([...password].some(isControl)) return 'Password must not contain control characters';
  // A lone surrogate cannot be typed again the same way.
  if (LONE_SURROGATE.test(password)) return 'Password must be valid text';
  return null;
}

function deriveKey(
  password: string,
  salt: Buffer,
  keyBytes: number,
  options: ScryptOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyBytes, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `scrypt$15$8$1$<salt b64url>$<key b64url>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await deriveKey(password, salt, KEY_BYTES, {
    N: 2 ** COST_LOG2,
    r: BLOCK_SIZE,
    p: PARALLELISM,
    maxmem: maxmemFor(COST_LOG2, BLOCK_SIZE),
  });
  return [
    'scrypt',
    COST_LOG2,
    BLOCK_SIZE,
    PARALLELISM,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

/** True when `password` is the one `stored` was made from; compared in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = STORED.exec(stored);
  if (!match) return false;
  const [costLog2, blockSize, parallelism] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // Parameters are read from the stored string; bounds keep a damaged row from costing minutes.
  if (costLog2 < 10 || costLog2 > MAX_COST_LOG2 || blockSize < 1 || blockSize > 16) return false;
  if (parallelism < 1 || parallelism > 4) return false;
  const salt = Buffer.from(match[4]!, 'base64url');
  const expected = Buffer.from(match[5]!, 'base64url');
  const key = await deriveKey(password, salt, expected.length, {
    N: 2 ** costLog2,
    r: blockSize,
    p: parallelism,
    maxmem: maxmemFor(costLog2, blockSize),
  });
  return timingSafeEqual(key, expected);
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same scrypt work as verifying a real password, for an unknown email, so that the
 * answer's timing does not tell whether an account exists. Always false.
 */
export async function verifyNoPassword(password: string): Promise<false> {
  dummyHash ??= hashPassword('not a password of anyone');
  await verifyPassword(password, await dummyHash);
  return false;
}
