// Idempotency-Key for POST routes (docs/contract.md#idempotency): the same client and key within 24
// hours replays the first response; the same key with another body is 422 idempotency_key_reused; a
// duplicate while the first is still running is 409 idempotency_key_in_use. The key is claimed in
// the same transaction as the insert it protects, so a failure stores nothing.
import { createHash } from 'node:crypto';
import { getTableName, lte, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { AppContext } from '../context.ts';
import type { FastifyReply } from 'fastify';
import { boundSql, type Tx } from './db.ts';
import { idempotencyKeys } from './idempotency.schema.ts';
import type { JobHandler } from './jobs.ts';
import { ApiError } from './errors.ts';

const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

function requestHash(body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(body ?? null)))
    .digest('hex');
}

/** Reads and checks the Idempotency-Key header: 1 to 255 printable ASCII characters. */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header) || header.length === 0 || header.length > 255 || !/^[\x21-\x7e]+$/.test(header)) {
    throw new ApiError('validation_failed', 'Idempotency-Key must be 1 to 255 printable characters.', {
      errors: [
        { field: 'Idempotency-Key', message: 'must be 1 to 255 printable ASCII characters without spaces' },
      ],
    });
  }
  return header;
}

export interface IdempotentResult<T> {
  status: number;
  body: T;
  replayed: boolean;
}

/** What the protected work answers. */
export interface IdempotentWork<T> {
  status: number;
  body: T;
  /**
   * Writes the work has sent but not waited for (their results are not needed for the answer):
   * the stored response goes out with them, and both are awaited before COMMIT. One that fails
   * fails the whole request.
   */
  written?: Promise<unknown>;
}

/** Sends an idempotent result: the first answer, or its replay marked Idempotent-Replayed. */
export function sendIdempotent<T>(reply: FastifyReply, result: IdempotentResult<T>) {
  if (result.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.code(result.status).send(result.body);
}

/** A stored response, as the lookup reads it (written out in SQL: see runIdempotent). */
interface StoredResponse {
  operation: string;
  request_hash: string;
  response_status: number;
  response_body: unknown;
  /** stored within the last IDEMPOTENCY_RETENTION_MS */
  fresh: boolean;
}

/**
 * Claims the key for the transaction: an advisory lock on client and key, held until it ends
 * (runIdempotentWrite takes the same).
 */
function claimStatement(clientId: string, key: string): SQL {
  return sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${`${clientId}:${key}`}, 0)) AS ok`;
}

function inUse(): ApiError {
  return new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still in progress.', {
    headers: { 'Retry-After': '1' },
  });
}

/** The response stored under the key, if any. */
function lookupStatement(clientId: string, key: string, cutoff: Date): SQL {
  return sql`SELECT operation, request_hash, response_status, response_body,
      created_at > ${cutoff.toISOString()}::timestamptz AS fresh
    FROM ${idempotencyKeys} WHERE api_client_id = ${clientId} AND key = ${key}`;
}

/**
 * What a stored response means for a request that holds the key: a replay of a fresh response to
 * the same request, 422 for a fresh response to another one, and undefined when there is none
 * (the request is to be carried out).
 */
function replayOf<T>(
  previous: StoredResponse | undefined,
  operation: string,
  hash: string,
): IdempotentResult<T> | undefined {
  if (!previous?.fresh) return undefined;
  if (previous.operation !== operation || previous.request_hash !== hash) {
    throw new ApiError(
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request; use a new key for a new request.',
    );
  }
  return { status: previous.response_status, body: previous.response_body as T, replayed: true };
}

interface IdempotencyOptions {
  clientId: string;
  key: string | undefined;
  operation: string;
  body: unknown;
}

/**
 * Runs `work` in a transaction under the Idempotency-Key, if one was sent. The claim, the lookup
 * and the stored response are written out as SQL: they run on every keyed request, and building
 * them with the query builder cost several times more CPU
 * (docs/decisions/keyed-session-creation-one-statement.md).
 */
export async function runIdempotent<T>(
  ctx: AppContext,
  options: IdempotencyOptions,
  work: (tx: Tx) => Promise<IdempotentWork<T>>,
): Promise<IdempotentResult<T>> {
  const { clientId, key, operation } = options;
  return ctx.database.transaction(async (tx): Promise<IdempotentResult<T>> => {
    if (key === undefined) {
      const { status, body, written } = await work(tx);
      await written;
      return { status, body, replayed: false };
    }
    const now = ctx.clock.now();
    const cutoff = new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS);
    // The claim and the lookup go out together (one round trip) but stay two statements, run in
    // order: the lookup takes its own snapshot after the lock is granted, so it sees the response
    // of a request that held the key until just before. (Folded into one statement, the lookup
    // would read the statement's snapshot, taken before the grant, and could miss it.)
    const [[claimed], [previous]] = await Promise.all([
      ctx.database.rows<{ ok: boolean }>(claimStatement(clientId, key), tx),
      ctx.database.rows<StoredResponse>(lookupStatement(clientId, key, cutoff), tx),
    ]);
    if (!claimed?.ok) throw inUse();
    const hash = requestHash(options.body);
    const prior = replayOf<T>(previous, operation, hash);
    if (prior) return prior;
    const { status, body, written } = await work(tx);
    const stored = ctx.database.rows(
      boundSql(STORE, storeParams({ clientId, key, operation, hash, status, body, now, cutoff })),
      tx,
    );
    await Promise.all([written, stored]);
    return { status, body, replayed: false };
  });
}

/**
 * The response stored for replays: a new row, or one over a row past its 24 hours (kept until
 * the sweep), never over a fresh one. `from` ends its SELECT. Values (storeParams): $1 client,
 * $2 key, $3 operation, $4 request hash, $5 status, $6 response, $7 now, $8 the cutoff (older
 * responses are forgotten).
 */
function storeText(from: string): string {
  return `INSERT INTO idempotency_keys
      (api_client_id, key, operation, request_hash, response_status, response_body, created_at)
    SELECT $1, $2, $3, $4, $5::int, $6::jsonb, $7::timestamptz ${from}
    ON CONFLICT (api_client_id, key) DO UPDATE SET operation = excluded.operation,
      request_hash = excluded.request_hash, response_status = excluded.response_status,
      response_body = excluded.response_body, created_at = excluded.created_at
    WHERE idempotency_keys.created_at <= $8::timestamptz`;
}
const STORE = storeText('');

function storeParams(stored: {
  clientId: string;
  key: string;
  operation: string;
  hash: string;
  status: number;
  body: unknown;
  now: Date;
  cutoff: Date;
}): unknown[] {
  return [
    stored.clientId,
    stored.key,
    stored.operation,
    stored.hash,
    stored.status,
    JSON.stringify(stored.body),
    stored.now.toISOString(),
    stored.cutoff.toISOString(),
  ];
}

/** Work whose answer and single write are known before it is written: nothing is read for it. */
export interface PlannedWrite<T> {
  status: number;
  body: T;
  /** the write: one row for `table`, by column name, in the JSON form json_populate_record reads */
  table: PgTable;
  row: Record<string, unknown>;
}

/** What the one statement of runIdempotentWrite answers. */
interface WriteOutcome {
  /** the key was free: no other request held it */
  claimed: boolean;
  /** the response was stored, and the work written with it */
  written: boolean;
}

/** The INSERT of a planned row ($1, JSON) for each row of `from`. */
function insertText(table: string, columns: string[], param: string, from: string): string {
  const list = columns.map((c) => `"${c}"`).join(', ');
  const values = columns.map((c) => `r."${c}"`).join(', ');
  return `INSERT INTO "${table}" (${list}) SELECT ${values}
    FROM json_populate_record(NULL::"${table}", ${param}::json) AS r${from}`;
}

/**
 * The text of runIdempotentWrite's statements, by table and columns: built once, so that a
 * request sends only its values, and PostgreSQL runs a statement it has prepared.
 */
const writeTexts = new Map<string, { keyed: string; unkeyed: string }>();
function writeTextsFor(table: PgTable, columns: string[]) {
  const name = getTableName(table);
  const cacheKey = `${name}(${columns.join(',')})`;
  let texts = writeTexts.get(cacheKey);
  if (!texts) {
    texts = {
      unkeyed: insertText(name, columns, '$1', ''),
      // storeParams, then $9 the row
      keyed: `WITH
    claim AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(hashtextextended($1 || ':' || $2, 0)) AS ok),
    stored AS (${storeText('FROM claim WHERE claim.ok')} RETURNING 1),
    work AS (${insertText(name, columns, '$9', ', stored')})
  SELECT claim.ok AS claimed, EXISTS (SELECT 1 FROM stored) AS written FROM claim`,
    };
    writeTexts.set(cacheKey, texts);
  }
  return texts;
}

/**
 * Like runIdempotent, for work planned before it is written (`plan` refuses a request by
 * throwing). The request is one statement, a transaction by itself, sent in one write and costing
 * one round trip: it claims the key, stores the response unless a fresh one is stored under the
 * key (ON CONFLICT ... DO UPDATE only over a row past its 24 hours, the upsert runIdempotent uses
 * too), and writes the work only with a stored response. ON CONFLICT decides against the latest
 * committed row, whatever the statement's snapshot saw, so a request that must not be carried out
 * (replayed, reused) writes nothing; the claim, taken first, answers 409 while another request
 * holds the key instead of waiting for it. A request that wrote nothing then reads what is stored.
 * The text is written out rather than built by the query builder: it runs on the path partners
 * call most, where the builder's work was a large share of the service's CPU.
 *
 * It runs pipelined with other requests' statements (Database.statement), which it must never
 * hold up for long, and it does not wait on locks held for long: the claim never waits; the
 * response's row is only ever written under the claim (or deleted by the hourly sweep, past its
 * 24 hours); and the work's foreign keys lock their parent rows (client, event, organization)
 * FOR KEY SHARE, which waits only for an update of a unique column of the same row, a short
 * admin transaction.
 */
export async function runIdempotentWrite<T>(
  ctx: AppContext,
  options: IdempotencyOptions,
  plan: () => PlannedWrite<T>,
): Promise<IdempotentResult<T>> {
  const { clientId, key, operation } = options;
  let planned: PlannedWrite<T>;
  try {
    planned = plan();
  } catch (error) {
    // A refused request stores nothing, but a key already answered still replays (or is in use).
    if (key === undefined) throw error;
    return runIdempotent(ctx, options, () => Promise.reject(error));
  }
  const { status, body, table, row } = planned;
  const texts = writeTextsFor(table, Object.keys(row));
  const json = JSON.stringify(row);
  if (key === undefined) {
    await ctx.database.statement(texts.unkeyed, [json]);
    return { status, body, replayed: false };
  }
  const now = ctx.clock.now();
  const cutoff = new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS);
  const hash = requestHash(options.body);
  const [outcome] = await ctx.database.statement<WriteOutcome>(texts.keyed, [
    ...storeParams({ clientId, key, operation, hash, status, body, now, cutoff }),
    json,
  ]);
  if (outcome!.written) return { status, body, replayed: false };
  if (!outcome!.claimed) throw inUse();
  const [previous] = await ctx.database.rows<StoredResponse>(lookupStatement(clientId, key, cutoff));
  // Claimed but not written: a fresh response is stored. Should it be gone already (swept
  // meanwhile), the client's retry is carried out.
  const prior = replayOf<T>(previous, operation, hash);
  if (!prior) throw inUse();
  return prior;
}

export const IDEMPOTENCY_SWEEP_JOB = 'idempotency.sweep';

/** Recurring: forgets keys past their 24 hours. */
export const idempotencyJobHandlers: Record<string, JobHandler> = {
  [IDEMPOTENCY_SWEEP_JOB]: async ({ tx, now }) => {
    await tx
      .delete(idempotencyKeys)
      .where(lte(idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS)));
    return { retryAt: new Date(now.getTime() + 3600_000) };
  },
};
