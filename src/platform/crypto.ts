// Hashing and constant-time comparison for secrets, and authenticated encryption for opaque cursors.
import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Compares two strings in time independent of where they differ (digests have equal length). */
export function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}

/** Compares a presented secret with a stored SHA-256 hex digest in constant time. */
export function matchesHash(presented: string, storedHex: string): boolean {
  const digest = createHash('sha256').update(presented, 'utf8').digest();
  const stored = Buffer.from(storedHex, 'hex');
  if (stored.length !== digest.length) return false;
  return timingSafeEqual(digest, stored);
}

/** AES-256-GCM sealed box, base64url: iv(12) | tag(16) | ciphertext. */
export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** Opens a sealed box; returns null for anything tampered with, truncated or not ours. */
export function open(key: Buffer, token: string): string | null {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return null;
  const raw = Buffer.from(token, 'base64url');
  if (raw.length < 29 || raw.toString('base64url') !== token) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
