// Service keys generated once and kept in the database, so every process shares them.
import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Database } from './db.ts';
import { settings } from './platform.schema.ts';

/** Returns the stored value for `key`, creating it with `make()` if absent (first writer wins). */
async function ensureSetting(database: Database, key: string, make: () => string): Promise<string> {
  await database.db.insert(settings).values({ key, value: make() }).onConflictDoNothing();
  const [row] = await database.db.select().from(settings).where(eq(settings.key, key));
  if (!row) throw new Error(`setting ${key} missing after insert`);
  return row.value;
}

export async function getSetting(database: Database, key: string): Promise<string | undefined> {
  const [row] = await database.db.select().from(settings).where(eq(settings.key, key));
  return row?.value;
}

export async function setSetting(database: Database, key: string, value: string): Promise<void> {
  await database.db
    .insert(settings)
    .values({ key, value })
    .onConflictDoUpdate({ target: settings.key, set: { value: sql`excluded.value` } });
}

export interface ServiceKeys {
  /** AES-256-GCM key for opaque list cursors */
  cursor: Buffer;
  /** AES-256-GCM key sealing partner access tokens */
  token: Buffer;
}

export async function loadServiceKeys(database: Database): Promise<ServiceKeys> {
  const make = () => randomBytes(32).toString('base64');
  const cursor = await ensureSetting(database, 'cursor_key', make);
  const token = await ensureSetting(database, 'token_key', make);
  return { cursor: Buffer.from(cursor, 'base64'), token: Buffer.from(token, 'base64') };
}
