// WEB_CONCURRENCY: one primary keeping N workers (node:cluster) on the same ports. The workers need
// PostgreSQL and Redis, so the second test runs when TEST_DATABASE_URL and TEST_REDIS_URL are set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { freshPostgresDatabase, testRedisKeyPrefix } from '../helpers/harness.ts';
import { MAIN, startMain, type Child } from '../helpers/process.ts';

const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;

test('WEB_CONCURRENCY above 1 without PostgreSQL and Redis fails at start, naming both', async () => {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, WEB_CONCURRENCY: '2', DATABASE_URL: '', REDIS_URL: '', DATA_DIR: 'memory://' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.equal(code, 2);
  assert.match(out, /WEB_CONCURRENCY above 1 needs DATABASE_URL \(PostgreSQL\) and REDIS_URL/);
});

/** The pids of the processes that logged "listening", in order. */
function listeningPids(output: string): number[] {
  return output
    .split('\n')
    .filter((line) => line.includes('"msg":"listening"'))
    .map((line) => (JSON.parse(line) as { pid: number }).pid);
}

async function until(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test(
  'two workers serve the same ports; one killed is started again; SIGTERM stops them all',
  {
    skip: databaseUrl && redisUrl ? false : 'needs PostgreSQL and Redis (TEST_DATABASE_URL, TEST_REDIS_URL)',
  },
  async () => {
    const database = await freshPostgresDatabase(databaseUrl!);
    const dataDir = mkdtempSync(join(tmpdir(), 'workers-'));
    let child: Child | undefined;
    try {
      const service = await startMain(
        {
          WEB_CONCURRENCY: '2',
          DATABASE_URL: database.url,
          REDIS_URL: redisUrl!,
          REDIS_KEY_PREFIX: testRedisKeyPrefix(),
          SEED_DEMO: 'true',
          DATA_DIR: dataDir,
          NODE_ENV: 'development',
        },
        60_000,
      );
      child = service;
      await until('both workers listening', () => listeningPids(service.output()).length === 2);
      const [first, second] = listeningPids(service.output());
      assert.notEqual(first, second);
      assert.ok(
        first !== service.process.pid && second !== service.process.pid,
        'the primary does not serve',
      );
      // Payments in the simulator live in its memory: the workers use the primary's.
      assert.equal(service.output().match(/using the payment simulator at SIMULATOR_URL/g)?.length, 2);
      // The demo organization is seeded once, by the primary, before the workers start.
      assert.equal(service.output().match(/client_secret +sk_/g)?.length, 1);

      const answers = await Promise.all(
        Array.from({ length: 20 }, () => fetch(`${service.urls.api}/readyz`).then((res) => res.status)),
      );
      assert.deepEqual(new Set(answers), new Set([200]));

      process.kill(first!, 'SIGKILL');
      await until('a worker started again', () => listeningPids(service.output()).length === 3);
      assert.match(service.output(), /worker exited; starting it again/);
      const third = listeningPids(service.output())[2]!;
      assert.ok(alive(third) && alive(second!));
      assert.equal((await fetch(`${service.urls.api}/readyz`)).status, 200);

      service.process.kill('SIGTERM');
      assert.equal(await service.exited, 0);
      await until('every worker gone', () => !alive(second!) && !alive(third), 5_000);
      assert.equal(service.output().match(/"msg":"stopped"/g)?.length, 2);
    } finally {
      for (const pid of child ? [child.process.pid!, ...listeningPids(child.output())] : []) {
        if (alive(pid)) process.kill(pid, 'SIGKILL');
      }
      rmSync(dataDir, { recursive: true, force: true });
      await database.drop();
    }
  },
);
