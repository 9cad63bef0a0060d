// An error that escapes every handler ends the process as one JSON line at fatal, with its stack,
// rather than Node's plain-text crash; under WEB_CONCURRENCY the primary starts the worker again.
// The escape is made by a preloaded module (test/fixtures/escape-once.mjs) rejecting a promise
// nobody handles once the service listens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshPostgresDatabase, testRedisKeyPrefix } from '../helpers/harness.ts';
import { startMain } from '../helpers/process.ts';

const ESCAPE = fileURLToPath(new URL('../fixtures/escape-once.mjs', import.meta.url));
const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

type Line = { level?: number; msg?: string; origin?: string; pid?: number; err?: { stack?: string } };

/** Every line of the output, which must each be JSON. */
function jsonLines(output: string): Line[] {
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Line;
      } catch {
        assert.fail(`a line that is not JSON: ${line}`);
      }
    });
}

async function until(what: string, check: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('an unhandled rejection ends the process with one JSON line at fatal, with its stack', async () => {
  const child = await startMain(
    {
      DATA_DIR: 'memory://',
      SEED_DEMO: 'false',
      NODE_ENV: 'test',
      ADMIN_API_KEY: 'adm_escape_key_0123456789abcdefghij',
    },
    60_000,
    ['--import', ESCAPE, fileURLToPath(new URL('../../src/main.ts', import.meta.url))],
  );
  const code = await child.exited;
  assert.equal(code, 1);
  const lines = jsonLines(child.output());
  const fatal = lines.filter((line) => line.level === 60);
  assert.equal(fatal.length, 1, child.output());
  assert.equal(fatal[0]!.origin, 'unhandledRejection');
  assert.equal(fatal[0]!.pid, child.process.pid);
  assert.match(fatal[0]!.err?.stack ?? '', /escaped from a dropped promise\n\s+at /);
});

test(
  'under WEB_CONCURRENCY a worker whose error escaped is started again and the service answers',
  {
    skip: databaseUrl && redisUrl ? false : 'needs PostgreSQL and Redis (TEST_DATABASE_URL, TEST_REDIS_URL)',
  },
  async () => {
    const database = await freshPostgresDatabase(databaseUrl!);
    const dataDir = mkdtempSync(join(tmpdir(), 'escape-'));
    let pids: number[] = [];
    try {
      const service = await startMain(
        {
          WEB_CONCURRENCY: '2',
          DATABASE_URL: database.url,
          REDIS_URL: redisUrl!,
          REDIS_KEY_PREFIX: testRedisKeyPrefix(),
          SEED_DEMO: 'false',
          DATA_DIR: dataDir,
          NODE_ENV: 'test',
          ADMIN_API_KEY: 'adm_escape_key_0123456789abcdefghij',
          ESCAPE_ONCE_FLAG: join(dataDir, 'escaped'),
          // the workers inherit the preload through the environment, as node:cluster forks them
          NODE_OPTIONS: `--import ${ESCAPE}`,
        },
        60_000,
      );
      const listening = () => jsonLines(service.output()).filter((line) => line.msg === 'listening');
      await until('a worker started again after its escape', () => listening().length === 3);
      pids = [service.process.pid!, ...listening().map((line) => line.pid!)];
      const lines = jsonLines(service.output());
      const fatal = lines.filter((line) => line.level === 60);
      assert.equal(fatal.length, 1, service.output());
      assert.equal(fatal[0]!.origin, 'unhandledRejection');
      assert.ok(lines.some((line) => line.msg === 'worker exited; starting it again'));
      assert.equal((await fetch(`${service.urls.api}/readyz`)).status, 200);
      service.process.kill('SIGTERM');
      assert.equal(await service.exited, 0);
    } finally {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      rmSync(dataDir, { recursive: true, force: true });
      await database.drop();
    }
  },
);
