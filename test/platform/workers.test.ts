// WEB_CONCURRENCY: one primary keeping N workers (node:cluster) on the same ports, and serving
// their metrics summed on METRICS_PORT. The workers need PostgreSQL and Redis, so the tests after
// the first run when TEST_DATABASE_URL and TEST_REDIS_URL are set (test/metrics/cluster-metrics.test.ts
// shows the metrics of a cluster without them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { WORKER_ANSWER_TIMEOUT_MS } from '../../src/metrics/cluster-metrics.ts';
import { freshPostgresDatabase, testRedisKeyPrefix } from '../helpers/harness.ts';
import { freePort, MAIN, startMain, type Child } from '../helpers/process.ts';
import { parseMetrics, type Samples } from '../metrics/parse-metrics.ts';

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

/**
 * The service with WEB_CONCURRENCY=2 on a fresh PostgreSQL database and Redis, once both workers
 * listen; every process it started is killed and the database dropped afterwards.
 */
async function withTwoWorkers(env: Record<string, string>, body: (service: Child) => Promise<void>) {
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
        DATA_DIR: dataDir,
        NODE_ENV: 'development',
        ...env,
      },
      60_000,
    );
    child = service;
    await until('both workers listening', () => listeningPids(service.output()).length === 2);
    await body(service);
  } finally {
    for (const pid of child ? [child.process.pid!, ...listeningPids(child.output())] : []) {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}

test(
  'two workers serve the same ports; one killed is started again; SIGTERM stops them all',
  {
    skip: databaseUrl && redisUrl ? false : 'needs PostgreSQL and Redis (TEST_DATABASE_URL, TEST_REDIS_URL)',
  },
  () =>
    withTwoWorkers({ SEED_DEMO: 'true' }, async (service) => {
      const [first, second] = listeningPids(service.output());
      assert.notEqual(first, second);
      assert.ok(
        first !== service.process.pid && second !== service.process.pid,
        'the primary does not serve',
      );
      // Every line names the process that wrote it: a worker's its place, too.
      const lines = service
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { pid: number; worker?: number; msg: string });
      assert.ok(lines.every((line) => typeof line.pid === 'number'));
      const places = new Map(lines.filter((l) => l.msg === 'listening').map((l) => [l.pid, l.worker]));
      assert.deepEqual([...places.values()].sort(), [0, 1]);
      const workerLines = lines.filter((line) => line.pid !== service.process.pid);
      assert.ok(workerLines.length > places.size);
      for (const line of workerLines) assert.equal(line.worker, places.get(line.pid), line.msg);
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
    }),
);

/** GET on a connection of its own, so that each request goes to the next worker. */
function getStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
    })
      .on('error', reject)
      .end();
  });
}

test(
  "under WEB_CONCURRENCY the primary serves one /metrics: both workers' requests summed, a stopped worker does not hang it",
  {
    skip: databaseUrl && redisUrl ? false : 'needs PostgreSQL and Redis (TEST_DATABASE_URL, TEST_REDIS_URL)',
  },
  async () => {
    const metricsPort = await freePort();
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    await withTwoWorkers({ SEED_DEMO: 'false', METRICS_PORT: String(metricsPort) }, async (service) => {
      const lines = () =>
        service
          .output()
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map(
            (line) =>
              JSON.parse(line) as { pid: number; msg: string; metrics?: string; req?: { url?: string } },
          );
      // METRICS_PORT is the primary's; the workers serve no metrics of their own.
      const serving = lines().filter((line) => line.metrics);
      assert.deepEqual(
        serving.map((line) => [line.pid, line.msg, line.metrics]),
        [[service.process.pid, "serving the workers' metrics", metricsUrl]],
      );
      const workerPids = listeningPids(service.output());
      const scrape = async (): Promise<Samples> => {
        const res = await fetch(metricsUrl);
        assert.equal(res.status, 200);
        return parseMetrics(await res.text());
      };
      const healthz =
        'http_request_duration_seconds_count{host="api",method="GET",route="/healthz",status="200"}';

      const before = await scrape();
      for (let i = 0; i < 20; i++) assert.equal(await getStatus(`${service.urls.api}/healthz`), 200);
      const after = await scrape();
      assert.equal((after.get(healthz) ?? 0) - (before.get(healthz) ?? 0), 20);
      // Both workers answered some of the 20 (each request is logged by the worker that took it).
      const takers = new Set(
        lines()
          .filter((line) => line.msg === 'incoming request' && line.req?.url === '/healthz')
          .map((line) => line.pid),
      );
      assert.deepEqual(takers, new Set(workerPids));

      // Each worker's own gauges keep its label; the database's are read once for the instance.
      for (const worker of ['0', '1']) {
        assert.equal(after.get(`redis_up{worker="${worker}"}`), 1, worker);
        assert.equal(after.get(`db_connections{pool="reads",worker="${worker}"}`), 2, worker);
        // Present, not zero: a worker's start-up sweeps may hold a transaction at the scrape.
        assert.ok(after.has(`db_transactions_in_flight{worker="${worker}"}`), worker);
        assert.ok(after.has(`nodejs_eventloop_lag_p99_seconds{worker="${worker}"}`), worker);
      }
      assert.ok(!after.has('redis_up'));
      assert.equal(after.get('order_holds_active'), 0);
      assert.equal(after.get('webhook_deliveries_pending'), 0);
      assert.equal(after.get('http_requests_shed_total{host="api"}'), 0);
      assert.equal(after.get('rate_limit_refusals_total{limiter="token"}'), 0);
      assert.equal(after.get('metrics_workers_unanswered'), 0);
      const builds = [...after.entries()].filter(([key]) => key.startsWith('build_info'));
      assert.equal(builds.length, 1, String(builds));
      assert.match(
        builds[0]![0],
        new RegExp(`^build_info\\{commit="([0-9a-f]{7,64}|unknown)",version="${version}"\\}$`),
      );

      // A stopped worker: the scrape comes within the bound, without it, its counters kept.
      process.kill(workerPids[0]!, 'SIGSTOP');
      try {
        const started = performance.now();
        const partial = await scrape();
        const took = performance.now() - started;
        assert.ok(took < WORKER_ANSWER_TIMEOUT_MS + 2000, `answered in ${took} ms`);
        assert.equal(partial.get('metrics_workers_unanswered'), 1);
        assert.equal(partial.get(healthz), after.get(healthz));
      } finally {
        process.kill(workerPids[0]!, 'SIGCONT');
      }
      // Killed and started again: the instance's counters do not go down.
      process.kill(workerPids[0]!, 'SIGKILL');
      await until('the worker started again', () => listeningPids(service.output()).length === 3);
      const again = await scrape();
      assert.equal(again.get(healthz), after.get(healthz));
      assert.equal(again.get('metrics_workers_unanswered'), 0);

      service.process.kill('SIGTERM');
      assert.equal(await service.exited, 0);
    });
  },
);
