// API clients: client credentials, publishable key, scopes and domain allowlists.
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../platform/db.ts';
import { sha256Hex } from '../platform/crypto.ts';
import { newId, newSecret } from '../platform/ids.ts';
import { apiClients } from './auth.schema.ts';
import type { Scope } from './scopes.ts';

export type ApiClientRow = typeof apiClients.$inferSelect;

export interface ApiClientOut {
  client_id: string;
  organization_id: string;
  name: string;
  scopes: string[];
  allowed_domains: string[];
  return_url_domains: string[];
  publishable_key: string;
  status: 'active' | 'revoked';
  revoked_at: string | null;
  secret_rotated_at: string | null;
  created_at: string;
  updated_at: string;
}

export function toClientOut(row: ApiClientRow): ApiClientOut {
  return {
    client_id: row.id,
    organization_id: row.organizationId,
    name: row.name,
    scopes: row.scopes,
    allowed_domains: row.allowedDomains,
    return_url_domains: row.returnUrlDomains,
    publishable_key: row.publishableKey,
    status: row.revokedAt ? 'revoked' : 'active',
    revoked_at: row.revokedAt?.toISOString() ?? null,
    secret_rotated_at: row.secretRotatedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export interface CreateClientInput {
  organizationId: string;
  name: string;
  scopes: Scope[];
  allowedDomains: string[];
  returnUrlDomains: string[];
}

/** Creates a client; the plain secret is returned here and never again. */
export async function createApiClient(
  db: Executor,
  input: CreateClientInput,
): Promise<{ client: ApiClientRow; clientSecret: string }> {
  const clientSecret = newSecret('sk');
  const [client] = await db
    .insert(apiClients)
    .values({
      id: newId('cli'),
      organizationId: input.organizationId,
      name: input.name,
      secretHash: sha256Hex(clientSecret),
      scopes: [...new Set(input.scopes)],
      allowedDomains: [...new Set(input.allowedDomains)],
      returnUrlDomains: [...new Set(input.returnUrlDomains)],
      publishableKey: newId('pk', 32),
    })
    .returning();
  return { client: client!, clientSecret };
}

export async function findApiClient(db: Executor, clientId: string): Promise<ApiClientRow | undefined> {
  const [row] = await db.select().from(apiClients).where(eq(apiClients.id, clientId));
  return row;
}

export async function findApiClientByPublishableKey(
  db: Executor,
  publishableKey: string,
): Promise<ApiClientRow | undefined> {
  const [row] = await db.select().from(apiClients).where(eq(apiClients.publishableKey, publishableKey));
  return row;
}

export async function listApiClients(db: Executor, organizationId: string): Promise<ApiClientRow[]> {
  return db
    .select()
    .from(apiClients)
    .where(eq(apiClients.organizationId, organizationId))
    .orderBy(apiClients.createdAt, apiClients.id);
}

export interface UpdateClientInput {
  name?: string;
  scopes?: Scope[];
  allowedDomains?: string[];
  returnUrlDomains?: string[];
}

export async function updateApiClient(
  db: Executor,
  clientId: string,
  input: UpdateClientInput,
  now: Date,
): Promise<ApiClientRow | undefined> {
  const [row] = await db
    .update(apiClients)
    .set({
      ...(input.name !== undefined && { name: input.name }),
      ...(input.scopes && { scopes: [...new Set(input.scopes)] }),
      ...(input.allowedDomains && { allowedDomains: [...new Set(input.allowedDomains)] }),
      ...(input.returnUrlDomains && { returnUrlDomains: [...new Set(input.returnUrlDomains)] }),
      updatedAt: now,
    })
    .where(eq(apiClients.id, clientId))
    .returning();
  return row;
}

/** Revoking cuts off the key and all its tokens on the next request (every request reads revoked_at). */
export async function revokeApiClient(
  db: Executor,
  clientId: string,
  now: Date,
): Promise<ApiClientRow | undefined> {
  const [row] = await db
    .update(apiClients)
    .set({
      revokedAt: sql`coalesce(${apiClients.revokedAt}, ${now.toISOString()}::timestamptz)`,
      updatedAt: now,
    })
    .where(eq(apiClients.id, clientId))
    .returning();
  return row;
}

/** New secret; the old one stops minting tokens at once, tokens already issued live until expiry. */
export async function rotateClientSecret(
  db: Executor,
  clientId: string,
  now: Date,
): Promise<{ client: ApiClientRow; clientSecret: string } | undefined> {
  const clientSecret = newSecret('sk');
  const [row] = await db
    .update(apiClients)
    .set({ secretHash: sha256Hex(clientSecret), secretRotatedAt: now, updatedAt: now })
    .where(and(eq(apiClients.id, clientId), sql`${apiClients.revokedAt} IS NULL`))
    .returning();
  return row && { client: row, clientSecret };
}

/** New publishable key; the old one is invalid_key at once. */
export async function regeneratePublishableKey(
  db: Executor,
  clientId: string,
  now: Date,
): Promise<ApiClientRow | undefined> {
  const [row] = await db
    .update(apiClients)
    .set({ publishableKey: newId('pk', 32), updatedAt: now })
    .where(and(eq(apiClients.id, clientId), sql`${apiClients.revokedAt} IS NULL`))
    .returning();
  return row;
}

/** True when some active client lists this origin: the CORS preflight gate (SPEC.md 5.4). */
export async function isOriginAllowlisted(db: Executor, origin: string): Promise<boolean> {
  const rows = await db
    .select({ id: apiClients.id })
    .from(apiClients)
    .where(
      and(
        sql`${apiClients.allowedDomains} @> ARRAY[${origin}]::text[]`,
        sql`${apiClients.revokedAt} IS NULL`,
      ),
    )
    .limit(1);
  return rows.length > 0;
}
