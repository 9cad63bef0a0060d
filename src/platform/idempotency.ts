// Idempotency-Key for POST routes (DESIGN.md section 3): the same client and key within 24 hours
// replays the first response; the same key with another body is 422 idempotency_key_reused; a
// duplicate while the first is still running is 409 idempotency_key_in_use. The key is claimed in
// the same transaction as the insert it protects, so a failure stores nothing.
import { createHash } from 'node:crypto';
import { and, eq, lte, sql } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { idempotencyKeys } from '../checkout/checkout.schema.ts';
import type { FastifyReply } from 'fastify';
import type { Tx } from './db.ts';
import type { JobHandler } from './jobs.ts';
import { ApiError } from './errors.ts';

export const IDEMPOTENCY_RETENTION_MS = 24 * 3600 * 1000;

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

export function requestHash(body: unknown): string {
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
   * the stored response and COMMIT follow them on the wire (Database.transaction), so the work's
   * last writes cost no round trip of their own. One that fails fails the whole request.
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
 * Runs `work` in a transaction under the Idempotency-Key, if one was sent. The lookup and the
 * stored response are written as SQL templates: they run on every keyed request, and the query
 * builder took 25 to 35 µs of CPU to build each (a template: about 3).
 */
export async function runIdempotent<T>(
  ctx: AppContext,
  options: { clientId: string; key: string | undefined; operation: string; body: unknown },
  work: (tx: Tx) => Promise<IdempotentWork<T>>,
): Promise<IdempotentResult<T>> {
  const { clientId, key, operation } = options;
  return ctx.database.transaction(
    async (tx): Promise<{ value: IdempotentResult<T>; writes: Promise<unknown>[] }> => {
      if (key === undefined) {
        const { status, body, written } = await work(tx);
        return { value: { status, body, replayed: false }, writes: written ? [written] : [] };
      }
      const now = ctx.clock.now();
      const cutoff = new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS);
      // The claim and the lookup go out together (one round trip) but stay two statements, run in
      // order: the lookup takes its own snapshot after the lock is granted, so it sees the response
      // of a request that held the key until just before. (Folded into one statement, the lookup
      // would read the statement's snapshot, taken before the grant, and could miss it.)
      const [[claimed], [previous]] = await Promise.all([
        ctx.database.rows<{ ok: boolean }>(
          sql`SELECT pg_try_advisory_xact_lock(hashtextextended(${`${clientId}:${key}`}, 0)) AS ok`,
          tx,
        ),
        ctx.database.rows<StoredResponse>(
          sql`SELECT operation, request_hash, response_status, response_body,
              created_at > ${cutoff.toISOString()}::timestamptz AS fresh
            FROM ${idempotencyKeys} WHERE api_client_id = ${clientId} AND key = ${key}`,
          tx,
        ),
      ]);
      if (!claimed?.ok) {
        throw new ApiError(
          'idempotency_key_in_use',
          'A request with this Idempotency-Key is still in progress.',
          {
            headers: { 'Retry-After': '1' },
          },
        );
      }
      const hash = requestHash(options.body);
      if (previous?.fresh) {
        if (previous.operation !== operation || previous.request_hash !== hash) {
          throw new ApiError(
            'idempotency_key_reused',
            'This Idempotency-Key was already used with a different request; use a new key for a new request.',
          );
        }
        return {
          value: { status: previous.response_status, body: previous.response_body as T, replayed: true },
          writes: [],
        };
      }
      if (previous) {
        await tx
          .delete(idempotencyKeys)
          .where(
            and(
              eq(idempotencyKeys.apiClientId, clientId),
              eq(idempotencyKeys.key, key),
              lte(idempotencyKeys.createdAt, cutoff),
            ),
          );
      }
      const { status, body, written } = await work(tx);
      const stored = ctx.database.rows(
        sql`INSERT INTO ${idempotencyKeys}
            (api_client_id, key, operation, request_hash, response_status, response_body, created_at)
          VALUES (${clientId}, ${key}, ${operation}, ${hash}, ${status},
            ${JSON.stringify(body)}::jsonb, ${now.toISOString()}::timestamptz)`,
        tx,
      );
      return { value: { status, body, replayed: false }, writes: written ? [written, stored] : [stored] };
    },
  );
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
