// retryWhileUnreachable: idempotent database work is tried again when the database could not be
// reached, and only then: a statement the database refused fails at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DrizzleQueryError } from 'drizzle-orm';
import { retryWhileUnreachable } from '../../src/platform/db-errors.ts';

/** Errors as the drivers give them, wrapped by Drizzle as a failed query is. */
const killed = () =>
  new DrizzleQueryError(
    'select 1',
    [],
    Object.assign(new Error('terminating connection'), { code: '57P01' }),
  );
const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', syscall: 'read' });
const refused = () =>
  new DrizzleQueryError('insert', [], Object.assign(new Error('duplicate key'), { code: '23505' }));

test('tries again after a lost connection, telling each try its number', async () => {
  const tries: number[] = [];
  const result = await retryWhileUnreachable(
    async (attempt) => {
      tries.push(attempt);
      if (attempt === 1) throw killed();
      if (attempt === 2) throw reset();
      return 'written';
    },
    { delayMs: 1 },
  );
  assert.equal(result, 'written');
  assert.deepEqual(tries, [1, 2, 3]);
});

test('gives up after its tries with the last error', async () => {
  let tries = 0;
  await assert.rejects(
    retryWhileUnreachable(
      async () => {
        tries++;
        throw killed();
      },
      { tries: 2, delayMs: 1 },
    ),
    (error: unknown) => error instanceof DrizzleQueryError,
  );
  assert.equal(tries, 2);
});

test('a statement the database refused is not tried again', async () => {
  let tries = 0;
  await assert.rejects(
    retryWhileUnreachable(
      async () => {
        tries++;
        throw refused();
      },
      { delayMs: 1 },
    ),
  );
  assert.equal(tries, 1);
});
