// API clients: client credentials, publishable key, scopes and domain allowlists, and their wire shape.
import { and, eq, isNull, sql } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import {
  newId,
  newSecret,
  sha256Hex,
  Timestamp,
  type Db,
  type Executor,
  type Tx,
} from '../platform/index.ts';
import { joinOrganization, organizationColumns } from '../organizations/index.ts';
import { apiClients } from './auth.schema.ts';
import type { Scope } from './scopes.ts';

export type ApiClientRow = typeof apiClients.$inferSelect;

/** Never carries the secret or its hash. */
export const ClientOut = Type.Object({
  client_id: Type.String(),
  organization_id: Type.String(),
  name: Type.String(),
  display_name: Type.Union([Type.String(), Type.Null()], {
    description: "Shown to buyers in the checkout, e.g. on 'Back to …' buttons; null: the site's host name",
  }),
  scopes: Type.Array(Type.String()),
  allowed_domains: Type.Array(Type.String()),
  return_url_domains: Type.Array(Type.String()),
  publishable_key: Type.String(),
  status: Type.Enum(['active', 'revoked']),
  revoked_at: Type.Union([Timestamp, Type.Null()]),
  secret_rotated_at: Type.Union([Timestamp, Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ClientOut = Static<typeof ClientOut>;

export function toClientOut(row: ApiClientRow): ClientOut {
  return {
    client_id: row.id,
    organization_id: row.organizationId,
    name: row.name,
    display_name: row.displayName,
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
  /** checked by checkDisplayName (client-lists.ts); null or absent: none */
  displayName?: string | null | undefined;
  scopes: Scope[];
  allowedDomains: string[];
  returnUrlDomains: string[];
}

/** Creates a client; the plain secret is returned here and never again. */
export async function insertApiClient(
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
      displayName: input.displayName ?? null,
      secretHash: sha256Hex(clientSecret),
      scopes: [...new Set(input.scopes)],
      allowedDomains: [...new Set(input.allowedDomains)],
      returnUrlDomains: [...new Set(input.returnUrlDomains)],
      publishableKey: newId('pk', 32),
    })
    .returning();
  return { client: client!, clientSecret };
}

/** First key of the advisory lock a creation takes on its organization's clients (ASCII "Clie"). */
const CLIENT_LOCK_CLASS = 0x436c6965;

export type ClientCreation =
  | { created: true; client: ApiClientRow; clientSecret: string }
  | { created: false; live: number; limit: number };

/**
 * Creates a client unless the organization already has `limit` live (not revoked) ones: the one
 * creation every interface (admin API, organizer app, so the CLI too) goes through. Counted under
 * a transaction-level advisory lock on the organization, so that two creations at once are
 * counted one after the other and cannot pass the limit together; the caller's transaction
 * must write nothing else it would keep on a refusal.
 */
export async function insertApiClientWithinLimit(
  tx: Tx,
  input: CreateClientInput,
  limit: number,
): Promise<ClientCreation> {
  await tx.execute(
    sql`SELECT pg_advisory_xact_lock(${CLIENT_LOCK_CLASS}::int, hashtext(${input.organizationId})::int)`,
  );
  // A statement after the lock: under READ COMMITTED it sees the clients of the creations before.
  const [row] = await tx
    .select({ live: sql<number>`count(*)::int` })
    .from(apiClients)
    .where(and(eq(apiClients.organizationId, input.organizationId), isNull(apiClients.revokedAt)));
  const live = row?.live ?? 0;
  if (live >= limit) return { created: false, live, limit };
  return { created: true, ...(await insertApiClient(tx, input)) };
}

/** The refusal of a creation past the limit, in the words every interface shows. */
export function clientLimitMessage(refusal: { live: number; limit: number }): string {
  return `This organization has ${refusal.live} active API clients and may have at most ${refusal.limit}; revoke one it no longer uses, then create the new one.`;
}

export async function findApiClient(db: Executor, clientId: string): Promise<ApiClientRow | undefined> {
  const [row] = await db.select().from(apiClients).where(eq(apiClients.id, clientId));
  return row;
}

/** What checking a credential on a request needs: the client's current row and its organization's catalog version. */
export interface RequestClient {
  id: string;
  organizationId: string;
  scopes: Scope[];
  allowedDomains: string[];
  returnUrlDomains: string[];
  revokedAt: Date | null;
  catalogVersion: number;
}

const requestClientColumns = {
  id: apiClients.id,
  organizationId: apiClients.organizationId,
  scopes: apiClients.scopes,
  allowedDomains: apiClients.allowedDomains,
  returnUrlDomains: apiClients.returnUrlDomains,
  revokedAt: apiClients.revokedAt,
  catalogVersion: organizationColumns.catalogVersion,
};

function requestClientStatements(db: Db) {
  const query = () =>
    joinOrganization(db.select(requestClientColumns).from(apiClients).$dynamic(), apiClients.organizationId);
  return {
    client: db
      .select()
      .from(apiClients)
      .where(eq(apiClients.id, sql.placeholder('id')))
      .prepare('api_client_by_id'),
    byId: query()
      .where(eq(apiClients.id, sql.placeholder('id')))
      .prepare('request_client_by_id'),
    byKey: query()
      .where(eq(apiClients.publishableKey, sql.placeholder('key')))
      .prepare('request_client_by_publishable_key'),
  };
}
const statementsByDb = new WeakMap<Db, ReturnType<typeof requestClientStatements>>();

/**
 * The credential check of every partner request, in one statement (one round trip): the client
 * by id (bearer tokens) or by publishable key, with the organization's catalog version riding
 * along so cached event pages can be checked without a second query. Built once per database
 * (a prepared query), since it runs on every request.
 */
function statementsOf(db: Db) {
  let statements = statementsByDb.get(db);
  if (!statements) statementsByDb.set(db, (statements = requestClientStatements(db)));
  return statements;
}

/**
 * The name the partner chose to be shown to buyers (the checkout's "Back to …" buttons), or null
 * when it chose none (then show the return page's host). Revoked clients keep theirs: their
 * sessions' pages still name them.
 */
export async function clientDisplayName(db: Executor, clientId: string): Promise<string | null> {
  const [row] = await db
    .select({ displayName: apiClients.displayName })
    .from(apiClients)
    .where(eq(apiClients.id, clientId));
  return row?.displayName ?? null;
}

/** The client a token is asked for, as findApiClient reads it, as a prepared query (one round trip). */
export async function findClientForToken(db: Db, clientId: string): Promise<ApiClientRow | undefined> {
  const [row] = await statementsOf(db).client.execute({ id: clientId });
  return row;
}

export async function findRequestClient(
  db: Db,
  by: { clientId: string } | { publishableKey: string },
): Promise<RequestClient | undefined> {
  const statements = statementsOf(db);
  const [row] =
    'clientId' in by
      ? await statements.byId.execute({ id: by.clientId })
      : await statements.byKey.execute({ key: by.publishableKey });
  return row as RequestClient | undefined;
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
  /** checked by checkDisplayName (client-lists.ts); null removes it, undefined keeps it */
  displayName?: string | null | undefined;
  scopes?: Scope[];
  allowedDomains?: string[];
  returnUrlDomains?: string[];
}

export async function patchApiClient(
  db: Executor,
  clientId: string,
  input: UpdateClientInput,
  now: Date,
): Promise<ApiClientRow | undefined> {
  const [row] = await db
    .update(apiClients)
    .set({
      ...(input.name !== undefined && { name: input.name }),
      ...(input.displayName !== undefined && { displayName: input.displayName }),
      ...(input.scopes && { scopes: [...new Set(input.scopes)] }),
      ...(input.allowedDomains && { allowedDomains: [...new Set(input.allowedDomains)] }),
      ...(input.returnUrlDomains && { returnUrlDomains: [...new Set(input.returnUrlDomains)] }),
      updatedAt: now,
    })
    .where(eq(apiClients.id, clientId))
    .returning();
  return row;
}

/** A client's lists of origins. */
export type OriginList = 'allowedDomains' | 'returnUrlDomains';

/**
 * Adds one origin to a live client's list in one statement, so that two edits at once both stay;
 * nothing when the list has it already or holds `max`. True when the list changed.
 */
export async function appendClientOrigin(
  db: Executor,
  clientId: string,
  list: OriginList,
  origin: string,
  max: number,
  now: Date,
): Promise<boolean> {
  const column = apiClients[list];
  const rows = await db
    .update(apiClients)
    .set({ [list]: sql`array_append(${column}, ${origin}::text)`, updatedAt: now })
    .where(
      and(
        eq(apiClients.id, clientId),
        isNull(apiClients.revokedAt),
        sql`NOT (${origin}::text = ANY(${column}))`,
        sql`cardinality(${column}) < ${max}`,
      ),
    )
    .returning({ id: apiClients.id });
  return rows.length > 0;
}

/** Removes one origin from a live client's list in one statement; true when the list had it. */
export async function dropClientOrigin(
  db: Executor,
  clientId: string,
  list: OriginList,
  origin: string,
  now: Date,
): Promise<boolean> {
  const column = apiClients[list];
  const rows = await db
    .update(apiClients)
    .set({ [list]: sql`array_remove(${column}, ${origin}::text)`, updatedAt: now })
    .where(
      and(eq(apiClients.id, clientId), isNull(apiClients.revokedAt), sql`${origin}::text = ANY(${column})`),
    )
    .returning({ id: apiClients.id });
  return rows.length > 0;
}

/** Revoking cuts off the key and all its tokens on the next request (every request reads revoked_at). */
export async function markClientRevoked(
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
export async function replaceClientSecret(
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
export async function replacePublishableKey(
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

/**
 * True when some active client lists this origin: the CORS preflight gate
 * (docs/contract.md#publishable-keys).
 */
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
