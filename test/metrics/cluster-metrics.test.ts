// Under WEB_CONCURRENCY the primary serves one /metrics for the instance. A cluster as main.ts runs
// one (cluster-fixture.ts: runWorkers and the metrics module, without the service, so this runs on
// every setup) shows the workers' requests summed, the gauges of one process labelled by worker,
// a scrape answered within its bound while a worker is stopped, and counters that never go down
// when a worker is late or started again. test/platform/workers.test.ts does it with the service.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/process.ts';
import { waitFor } from '../helpers/wait.ts';
import { parseMetrics, type Samples } from './parse-metrics.ts';

const FIXTURE = fileURLToPath(new URL('./cluster-fixture.ts', import.meta.url));
const ANSWER_TIMEOUT_MS = 1000;
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const PINGS = 'http_request_duration_seconds_count{host="api",method="GET",route="/ping",status="200"}';
const SHED = 'http_requests_shed_total{host="api"}';

interface Line {
  msg: string;
  pid: number;
  worker?: number;
  metrics?: string;
}

let primary: ChildProcess;
let output = '';
let port: number;
let metricsUrl: string;

function lines(): Line[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The workers running now, by the lines they logged when they started. */
function workers(): Array<{ pid: number; worker: number }> {
  return lines()
    .filter((line) => line.msg === 'listening' && alive(line.pid))
    .map((line) => ({ pid: line.pid, worker: line.worker! }));
}

/** One request on a connection of its own, so that the cluster hands it to the next worker. */
function ping(): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/ping', agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve(Number(body)));
    })
      .on('error', reject)
      .end();
  });
}

async function scrape(): Promise<Samples> {
  const response = await fetch(metricsUrl);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  return parseMetrics(await response.text());
}

before(async () => {
  port = await freePort();
  primary = spawn(process.execPath, [FIXTURE], {
    env: { ...process.env, PORT: String(port), ANSWER_TIMEOUT_MS: String(ANSWER_TIMEOUT_MS) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  primary.stdout!.on('data', (chunk) => (output += chunk));
  primary.stderr!.on('data', (chunk) => (output += chunk));
  await waitFor(
    () => `two workers listening:\n${output}`,
    () => workers().length === 2,
  );
  metricsUrl = lines().find((line) => line.metrics)!.metrics!;
});

after(() => {
  const started = lines()
    .filter((line) => line.msg === 'listening')
    .map((line) => line.pid);
  for (const pid of [primary.pid!, ...started]) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

test("the primary serves one /metrics with every worker's requests and counters summed", async () => {
  assert.match(metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  const servedBy = lines().find((line) => line.metrics)!.pid;
  assert.equal(servedBy, primary.pid, 'the primary serves the metrics');
  const served: number[] = [];
  for (let i = 0; i < 20; i++) served.push(await ping());
  assert.deepEqual(new Set(served), new Set(workers().map((w) => w.pid)), 'both workers served');

  const samples = await scrape();
  assert.equal(samples.get(PINGS), 20);
  assert.equal(
    samples.get(
      'http_request_duration_seconds_bucket{host="api",le="+Inf",method="GET",route="/ping",status="200"}',
    ),
    20,
  );
  assert.equal(samples.get(SHED), 2, 'one shed request counted by each worker');
  assert.equal(samples.get('rate_limit_refusals_total{limiter="token"}'), 0);
  assert.equal(samples.get('metrics_workers_unanswered'), 0);
});

test('the gauges of one process keep a worker label; build_info is there once', async () => {
  const samples = await scrape();
  for (const worker of ['0', '1']) {
    assert.equal(samples.get(`redis_up{worker="${worker}"}`), 1, worker);
    assert.ok(samples.get(`process_start_time_seconds{worker="${worker}"}`)! > 0, worker);
    assert.ok(samples.has(`nodejs_eventloop_lag_p99_seconds{worker="${worker}"}`), worker);
  }
  for (const name of ['redis_up', 'process_start_time_seconds', 'nodejs_eventloop_lag_p99_seconds']) {
    assert.ok(!samples.has(name), `${name} without a worker label`);
  }
  // The other process metrics add up: the instance's CPU time.
  assert.ok(samples.get('process_cpu_user_seconds_total')! > 0);
  assert.ok(![...samples.keys()].some((key) => key.startsWith('process_cpu_user_seconds_total{')));
  const builds = [...samples.entries()].filter(([key]) => key.startsWith('build_info'));
  assert.equal(builds.length, 1, String(builds));
  const [key, value] = builds[0]!;
  assert.match(key, new RegExp(`^build_info\\{commit="([0-9a-f]{7,64}|unknown)",version="${version}"\\}$`));
  assert.equal(value, 1);
});

test('a stopped worker: the scrape is answered within the bound, with its counters as it last gave them', async () => {
  const [stopped, other] = workers();
  process.kill(stopped!.pid, 'SIGSTOP');
  try {
    const started = performance.now();
    const samples = await scrape();
    const took = performance.now() - started;
    assert.ok(took >= ANSWER_TIMEOUT_MS - 50 && took < ANSWER_TIMEOUT_MS + 2000, `answered in ${took} ms`);
    assert.equal(samples.get('metrics_workers_unanswered'), 1);
    assert.equal(samples.get(PINGS), 20, 'the counters do not go down');
    assert.equal(samples.get(SHED), 2);
    assert.ok(!samples.has(`redis_up{worker="${stopped!.worker}"}`), 'its gauges are left out');
    assert.equal(samples.get(`redis_up{worker="${other!.worker}"}`), 1);
  } finally {
    process.kill(stopped!.pid, 'SIGCONT');
  }
  const again = await scrape();
  assert.equal(again.get('metrics_workers_unanswered'), 0);
  assert.equal(again.get(`redis_up{worker="${stopped!.worker}"}`), 1);
});

test('a worker killed and started again: the counters go on from where they were', async () => {
  const [first, second] = workers();
  const restarted = async (gone: { pid: number; worker: number }, pings: number) => {
    process.kill(gone.pid, 'SIGKILL');
    await waitFor(`worker ${gone.worker} gone`, () => !alive(gone.pid));
    // Exited and not yet started again: nobody is asked for it, its counters stay.
    const meanwhile = await scrape();
    assert.equal(meanwhile.get(PINGS), pings);
    await waitFor(
      () => `worker ${gone.worker} started again:\n${output}`,
      () => workers().some((w) => w.worker === gone.worker),
    );
  };
  await restarted(first!, 20);
  const after = await scrape();
  assert.equal(after.get(PINGS), 20);
  // Two workers that started with one shed request each, and the one that exited.
  assert.equal(after.get(SHED), 3);
  for (let i = 0; i < 4; i++) await ping();
  assert.equal((await scrape()).get(PINGS), 24);

  // A second exit: the exited workers' counters are folded together and still counted once.
  await restarted(second!, 24);
  const later = await scrape();
  assert.equal(later.get(PINGS), 24);
  assert.equal(later.get(SHED), 4);
  assert.equal(later.get('metrics_workers_unanswered'), 0);
  assert.equal((await scrape()).get(PINGS), 24, 'the same on the next scrape');
});
