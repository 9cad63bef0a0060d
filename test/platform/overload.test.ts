// Load shedding (platform/overload.ts): the monitor's signals and episodes on an injected clock and
// delay sampler, and the settings' defaults; then instances saturated for real, on loopback:
// requests waiting for write admission past OVERLOAD_MAX_QUEUED (the database locked under the one
// admitted), a request waiting past OVERLOAD_MAX_QUEUE_TIME_MS (the service's clock moved on), the
// event loop blocked by this test's own busy loop, and development, which never sheds. Each time
// new requests are 503 with Retry-After (JSON on the API, an HTML page on the checkout), /readyz is
// 503 and /healthz 200, the held requests finish, and the instance recovers; shedding is counted
// per host in http_requests_shed_total and logged once per episode at warn.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import {
  eventLoopDelaySampler,
  OVERLOAD_CALM_MS,
  OVERLOAD_WINDOW_MS,
  OverloadMonitor,
  type DelaySampler,
  type OverloadSettings,
} from '../../src/platform/overload.ts';
import { parseMetrics } from '../metrics/parse-metrics.ts';
import { bearer, getToken, makeEvent, makePartner, startHarness } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait.ts';

/** A sampler that returns the delays given, in order, and counts its starts. */
function scriptedSampler(delays: number[]): DelaySampler & { starts: number } {
  return {
    starts: 0,
    start() {
      this.starts++;
    },
    take: () => delays.shift() ?? 0,
    stop() {},
  };
}

/** Log lines written to `lines`, parsed. */
function logSink(lines: Array<Record<string, unknown>>): Writable {
  return new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
}

const OFF: OverloadSettings = {
  maxEventLoopDelayMs: 0,
  maxQueued: 0,
  maxQueueTimeMs: 0,
  retryAfterSeconds: 5,
};
const PRODUCTION = { NODE_ENV: 'production', ADMIN_API_KEY: 'k'.repeat(24), PAYMENT_PROVIDER: 'simulator' };

describe('overload monitor', () => {
  test('requests in hand: the one that finds the limit reached is shed, the next taken once one is answered', () => {
    let now = 0;
    const monitor = new OverloadMonitor({ ...OFF, maxQueued: 4 }, { now: () => now });
    const requests = Array.from({ length: 4 }, (_, i) => {
      assert.equal(monitor.accepts(), true, `request ${i + 1}`);
      const request = monitor.begin();
      // Waiting for its turn or worked on, it is in hand all the same.
      if (i < 2) monitor.started(request);
      return request;
    });
    assert.equal(monitor.accepts(), false, 'the fifth is shed');
    assert.equal(monitor.overloaded, true);
    assert.equal(monitor.queued, 4, 'a shed request is not counted');
    monitor.end(requests[0]!);
    monitor.end(requests[0]!);
    assert.equal(monitor.queued, 3, 'an answer is counted once, however often it is told');
    assert.equal(monitor.accepts(), true, 'one answered: room for the next at once');
    monitor.begin();
    assert.equal(monitor.accepts(), false);
    for (const request of requests.slice(1)) monitor.end(request);
    now += OVERLOAD_CALM_MS - 1;
    monitor.sample();
    assert.equal(
      monitor.overloaded,
      true,
      'shedding lasts until no signal has been over for the calm period',
    );
    now += 1;
    monitor.sample();
    assert.equal(monitor.overloaded, false);

    const error = monitor.error();
    assert.equal(error.status, 503);
    assert.equal(error.code, 'service_unavailable');
    assert.deepEqual(error.headers, { 'Retry-After': '5' });
  });

  test('a request waiting past the queue-time budget makes new requests shed at once, until its work starts', () => {
    let now = 0;
    const monitor = new OverloadMonitor({ ...OFF, maxQueueTimeMs: 2000 }, { now: () => now });
    const worked = monitor.begin();
    monitor.started(worked);
    now = 500;
    const waiting = monitor.begin();
    now = 2500;
    assert.equal(monitor.oldestWaitMs(), 2000);
    assert.equal(monitor.accepts(), true, 'at the budget, not past it');
    now = 2501;
    assert.equal(monitor.accepts(), false, 'past it: shed on arrival, before any window ends');
    assert.equal(monitor.overloaded, true);
    monitor.started(waiting);
    assert.equal(monitor.accepts(), true, 'its turn came: the next request is taken');
    now = 60_000;
    assert.equal(monitor.accepts(), true, 'a request whose work runs long (a provider call) is not a wait');
    monitor.sample();
    assert.equal(monitor.overloaded, false);
  });

  test('a crowd is taken whole; once it has waited half the budget, one expected to wait past it is shed', () => {
    let now = 0;
    const monitor = new OverloadMonitor({ ...OFF, maxQueueTimeMs: 1000 }, { now: () => now });
    const crowd = Array.from({ length: 100 }, () => {
      assert.equal(monitor.accepts(), true, 'no pace is known yet: a burst is taken whole');
      return monitor.begin();
    });
    monitor.sample();
    now = 400;
    for (const request of crowd.slice(0, 20)) monitor.started(request);
    monitor.sample();
    assert.equal(monitor.expectedWaitMs(), 1600, '80 waiting, 20 started in 400 ms');
    assert.equal(
      monitor.accepts(),
      true,
      'the oldest has waited less than half the budget: a burst being taken in',
    );
    now = 500;
    assert.equal(monitor.accepts(), false, 'half the budget waited, and the next would wait past it');
    for (const request of crowd.slice(20, 65)) monitor.started(request);
    assert.equal(monitor.expectedWaitMs(), 700);
    assert.equal(monitor.accepts(), true, 'room again at that pace');
    for (const request of crowd.slice(65)) monitor.end(request);
    now = 1000;
    monitor.sample();
    assert.equal(monitor.expectedWaitMs(), 0, 'the queue emptied: no estimate until one lasts half a window');
  });

  test("a route's waits shed its own new requests only; the instance is shedding all the same", () => {
    let now = 0;
    const monitor = new OverloadMonitor({ ...OFF, maxQueueTimeMs: 2000 }, { now: () => now });
    const create = 'POST /v1/checkout-sessions';
    monitor.begin(create);
    now = 2001;
    assert.equal(monitor.accepts('GET /v1/events'), true, 'a read waits behind no creation');
    assert.equal(monitor.overloaded, false);
    assert.equal(monitor.accepts(create), false, 'a creation would');
    assert.equal(monitor.overloaded, true, '/readyz says so');
    assert.equal(monitor.accepts('GET /v1/events'), true);
  });

  test('the event-loop delay sheds only when its setting is given, and then until it has been calm', () => {
    const slow = () => Array.from({ length: 10 }, () => 5000);
    const defaults = loadConfig(PRODUCTION).overload;
    const quiet = new OverloadMonitor(defaults, { sampler: scriptedSampler(slow()) });
    for (let i = 0; i < 10; i++) {
      quiet.sample();
      assert.equal(quiet.accepts(), true, 'a busy machine alone is not the service falling behind');
    }

    const delays = [150, 250, 50, 150, 40, 40, 40, 40, 40];
    let now = 0;
    const sampler = scriptedSampler(delays);
    const monitor = new OverloadMonitor(
      { ...OFF, maxEventLoopDelayMs: 200, retryAfterSeconds: 3 },
      { sampler, now: () => now },
    );
    monitor.start();
    monitor.stop();
    assert.equal(sampler.starts, 1);
    const step = (expected: boolean, what: string) => {
      monitor.sample();
      assert.equal(monitor.overloaded, expected, what);
      assert.equal(monitor.accepts(), !expected, what);
      now += OVERLOAD_WINDOW_MS;
    };
    step(false, '150 ms is under the threshold');
    step(true, '250 ms is over it');
    step(true, 'one calm window is not enough');
    step(true, '150 ms (over half the threshold) is not calm: the calm period starts again');
    step(true, 'calm from here');
    step(true, 'calm for 500 ms');
    step(true, 'calm for 1000 ms');
    step(true, 'calm for 1500 ms');
    assert.equal(OVERLOAD_CALM_MS, 2000);
    // calm for 2000 ms: the delay is no longer over, and shedding ends 2 s after it last was
    monitor.sample();
    assert.equal(monitor.accepts(), true, 'taking requests again');
    now += OVERLOAD_CALM_MS;
    monitor.sample();
    assert.equal(monitor.overloaded, false);
    assert.deepEqual(monitor.error().headers, { 'Retry-After': '3' });
  });

  test('one warn line when shedding starts and one when it ends with how many were shed; none per request', () => {
    const lines: Array<Record<string, unknown>> = [];
    let now = 0;
    const monitor = new OverloadMonitor(
      { ...OFF, maxQueued: 1 },
      { now: () => now, log: createLogger('info', logSink(lines)) },
    );
    const held = monitor.begin();
    for (let i = 0; i < 50; i++) assert.equal(monitor.accepts(), false);
    monitor.sample();
    monitor.end(held);
    now += OVERLOAD_CALM_MS;
    monitor.sample();
    monitor.sample();
    assert.deepEqual(
      lines.map((line) => [line.level, line.msg]),
      [
        [40, 'overloaded: answering new requests 503 service_unavailable until the load falls'],
        [40, 'overload over: 50 requests shed; taking new requests again'],
      ],
    );
    assert.equal(lines[0]!.reason, 'queued');
    assert.equal(lines[0]!.queued, 1);
    assert.equal(lines[1]!.shed, 50);
  });

  test('0 turns each signal off', () => {
    const sampler = scriptedSampler([60_000, 60_000]);
    let now = 0;
    const monitor = new OverloadMonitor(OFF, { sampler, now: () => now });
    for (let i = 0; i < 10_000; i++) monitor.begin();
    now += 3_600_000;
    monitor.sample();
    assert.equal(monitor.enabled, false);
    assert.equal(monitor.accepts(), true);
    assert.equal(monitor.overloaded, false);
    monitor.start();
    assert.equal(sampler.starts, 0);
  });

  test('the event-loop sampler sees a blocked loop', async () => {
    const sampler = eventLoopDelaySampler();
    sampler.start();
    try {
      await sleep(100);
      sampler.take();
      busyWait(300);
      // Read at once: a longer window would also hold the many short turns of whatever else this
      // process runs, and one long turn among them falls outside the p99.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      const p99 = sampler.take();
      assert.ok(p99 >= 200, `a 300 ms block shows in the p99 (got ${p99} ms)`);
    } finally {
      sampler.stop();
    }
  });
});

describe('overload settings', () => {
  test('by default the queue time is 2 s, the delay off; development never sheds; tests set the queue time', () => {
    assert.deepEqual(loadConfig(PRODUCTION).overload, {
      maxEventLoopDelayMs: 0,
      maxQueued: 1200,
      maxQueueTimeMs: 2000,
      retryAfterSeconds: 5,
    });
    const given = {
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '300',
      OVERLOAD_MAX_QUEUED: '10',
      OVERLOAD_MAX_QUEUE_TIME_MS: '500',
    };
    assert.deepEqual(loadConfig({ ...PRODUCTION, ...given }).overload, {
      maxEventLoopDelayMs: 300,
      maxQueued: 10,
      maxQueueTimeMs: 500,
      retryAfterSeconds: 5,
    });
    const development = loadConfig({ NODE_ENV: 'development', ...given }).overload;
    assert.equal(new OverloadMonitor(development).enabled, false);
    // the suite's processes share a small machine: their waits are its load, not their own work
    assert.equal(loadConfig({ NODE_ENV: 'test' }).overload.maxQueueTimeMs, 0);
  });
});

function busyWait(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // the loop is held on purpose: this is the overload
  }
}

const RETRY_AFTER = '7';

/** A saturated-instance run: a service listening on loopback, a partner, a token and an event. */
async function startInstance(env: Record<string, string>, lines?: Array<Record<string, unknown>>) {
  const h = await startHarness({
    env: { OVERLOAD_RETRY_AFTER_SECONDS: RETRY_AFTER, ...env },
    ...(lines && { service: { logger: createLogger('info', logSink(lines)) } }),
  });
  const urls = await h.service.listen({ api: 0, site: 0, app: 0 });
  const partner = await makePartner(h);
  const token = await getToken(h, partner);
  const event = await makeEvent(h, partner);
  return { h, urls, token, eventId: event.id };
}

type Instance = Awaited<ReturnType<typeof startInstance>>;

/**
 * `count` checkout-session creations held: the table is locked under them (on PGlite, the one
 * connection too) until `release`. The first WRITE_CONCURRENCY are admitted, the rest wait for
 * admission.
 */
async function holdCreations(x: Instance, count: number) {
  const database = x.h.service.ctx.database;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const lockHeld = new Promise<void>((resolve) => (locked = resolve));
  const holding = database.transaction(async (tx) => {
    await database.rows(sql`LOCK TABLE checkout_sessions IN ACCESS EXCLUSIVE MODE`, tx);
    locked();
    await released;
  });
  await lockHeld;
  const held = Array.from({ length: count }, () => createSession(x));
  return {
    async release() {
      release();
      await holding;
      const statuses = (await Promise.all(held)).map((response) => response.status);
      assert.deepEqual(
        statuses,
        statuses.map(() => 201),
        'requests taken in before the overload are served',
      );
    },
  };
}

function createSession(x: Instance): Promise<Response> {
  return fetch(`${x.urls.api}/v1/checkout-sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(x.token) },
    body: JSON.stringify({
      event_id: x.eventId,
      on_success_url: 'https://shop.example.org/thanks',
      on_cancel_url: 'https://shop.example.org/cart',
    }),
  });
}

async function assertShed(x: Instance) {
  const events = await fetch(`${x.urls.api}/v1/events`, { headers: bearer(x.token) });
  assert.equal(events.status, 503);
  assert.equal(events.headers.get('retry-after'), RETRY_AFTER);
  const requestId = events.headers.get('x-request-id');
  assert.match(String(requestId), /^req_[A-Za-z0-9]{24}$/);
  assert.deepEqual(await events.json(), {
    code: 503,
    message: 'The service is overloaded; retry in a few seconds.',
    error_code: 'service_unavailable',
    request_id: requestId,
  });

  const token = await fetch(`${x.urls.api}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  assert.equal(token.status, 503, 'the token endpoint');
  assert.equal(token.headers.get('retry-after'), RETRY_AFTER);
  assert.equal(((await token.json()) as { error: string }).error, 'temporarily_unavailable');

  const page = await fetch(`${x.urls.site}/checkout/cs_0000000000000000`);
  assert.equal(page.status, 503, 'a checkout page');
  assert.equal(page.headers.get('retry-after'), RETRY_AFTER);
  assert.match(String(page.headers.get('content-type')), /^text\/html/);
  assert.match(await page.text(), /Please try again in a moment\./);

  for (const base of [x.urls.api, x.urls.site, x.urls.app]) {
    const ready = await fetch(`${base}/readyz`);
    assert.equal(ready.status, 503, `${base}/readyz`);
    assert.equal(ready.headers.get('retry-after'), RETRY_AFTER);
    assert.equal(((await ready.json()) as { error_code: string }).error_code, 'service_unavailable');
    assert.equal((await fetch(`${base}/healthz`)).status, 200, `${base}/healthz`);
  }
  // The organizer app is not shed.
  assert.equal((await fetch(`${x.urls.app}/sign-in`)).status, 200, 'the organizer app');
}

async function assertRecovers(x: Instance) {
  await waitFor(
    '/readyz to answer 200 again',
    async () => (await fetch(`${x.urls.api}/readyz`)).status === 200,
  );
  assert.equal(x.h.service.ctx.overload.overloaded, false);
  const events = await fetch(`${x.urls.api}/v1/events`, { headers: bearer(x.token) });
  assert.equal(events.status, 200);
  const page = await fetch(`${x.urls.site}/checkout/cs_0000000000000000`);
  assert.equal(page.status, 404, 'the checkout answers again (an unknown session)');
}

describe('one instance saturated: requests waiting for write admission past OVERLOAD_MAX_QUEUED', () => {
  let x: Instance;
  const lines: Array<Record<string, unknown>> = [];
  before(async () => {
    // One creation worked on at a time: the others wait for admission, which is where they count.
    x = await startInstance({ OVERLOAD_MAX_QUEUED: '3', WRITE_CONCURRENCY: '1', METRICS_PORT: '0' }, lines);
  });
  after(async () => {
    await x.h.close();
  });

  test('a slow sender is not counted in hand', async () => {
    const api = new URL(x.urls.api);
    const socket = connect(Number(api.port), api.hostname);
    try {
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(
        `POST /v1/checkout-sessions HTTP/1.1\r\nHost: example.org\r\nAuthorization: Bearer ${x.token}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{',
      );
      await sleep(200);
      assert.equal(x.h.service.ctx.overload.queued, 0);
    } finally {
      socket.destroy();
    }
  });

  test('requests waiting for admission count: the next is 503 at once, /readyz 503; the held ones finish', async () => {
    const monitor = x.h.service.ctx.overload;
    const writes = x.h.service.ctx.writes;
    const held = await holdCreations(x, 3);
    try {
      await waitFor('one creation admitted and two waiting for admission', () => writes.waiting === 2);
      await waitFor('three requests in hand', () => monitor.queued === 3);
      await assertShed(x);
      assert.equal(monitor.queued, 3, 'shed requests are not taken in');
    } finally {
      await held.release();
    }
    await assertRecovers(x);
  });

  test('shedding is counted per host in http_requests_shed_total and logged once per episode at warn', async () => {
    const scrape = async () => parseMetrics(await (await fetch(x.urls.metrics!)).text());
    await waitFor('no shedding', () => !x.h.service.ctx.overload.overloaded);
    const before = await scrape();
    const from = lines.length;
    const held = await holdCreations(x, 3);
    try {
      await waitFor('three requests in hand', () => x.h.service.ctx.overload.queued === 3);
      for (let i = 0; i < 5; i++) {
        assert.equal((await fetch(`${x.urls.api}/v1/events`, { headers: bearer(x.token) })).status, 503);
      }
      for (let i = 0; i < 2; i++) {
        assert.equal((await fetch(`${x.urls.site}/checkout/cs_0000000000000000`)).status, 503);
      }
      assert.equal((await fetch(`${x.urls.app}/sign-in`)).status, 200, 'the organizer app is not shed');
    } finally {
      await held.release();
    }
    await assertRecovers(x);
    const now = await scrape();
    const rise = (host: string) =>
      now.get(`http_requests_shed_total{host="${host}"}`)! -
      before.get(`http_requests_shed_total{host="${host}"}`)!;
    assert.equal(rise('api'), 5);
    assert.equal(rise('site'), 2);
    assert.equal(now.has('http_requests_shed_total{host="app"}'), false);

    const episode = lines.slice(from);
    assert.deepEqual(
      episode.filter((line) => line.component === 'overload').map((line) => [line.level, line.msg]),
      [
        [40, 'overloaded: answering new requests 503 service_unavailable until the load falls'],
        [40, 'overload over: 7 requests shed; taking new requests again'],
      ],
    );
    assert.deepEqual(
      episode.filter((line) => (line.level as number) >= 50),
      [],
      'a shed request is not an error',
    );
  });
});

describe('one instance saturated: a request waiting past OVERLOAD_MAX_QUEUE_TIME_MS', () => {
  let x: Instance;
  before(async () => {
    x = await startInstance({
      OVERLOAD_MAX_QUEUE_TIME_MS: '2000',
      OVERLOAD_MAX_QUEUED: '0',
      WRITE_CONCURRENCY: '1',
    });
  });
  after(async () => {
    await x.h.close();
  });

  test('new creations are 503 at once and /readyz 503 while one waits past the budget; then it recovers', async () => {
    const monitor = x.h.service.ctx.overload;
    const writes = x.h.service.ctx.writes;
    const held = await holdCreations(x, 2);
    try {
      await waitFor('one creation admitted and one waiting for admission', () => writes.waiting === 1);
      assert.equal(monitor.overloaded, false, 'under the budget: nothing is shed');
      // The service's clock moves on: the one waiting for admission has now waited 2.5 s.
      x.h.clock.advance(2500);
      assert.ok(monitor.oldestWaitMs('POST /v1/checkout-sessions') > 2000);
      const creation = await createSession(x);
      assert.equal(creation.status, 503, 'a new creation would wait behind it: shed at once');
      assert.equal(creation.headers.get('retry-after'), RETRY_AFTER);
      assert.equal(((await creation.json()) as { error_code: string }).error_code, 'service_unavailable');
      // Another route's request waits behind nothing: taken (no credential: the guard answers 401
      // without the database, which the test holds).
      assert.equal((await fetch(`${x.urls.api}/v1/events`)).status, 401);
      for (const base of [x.urls.api, x.urls.site, x.urls.app]) {
        assert.equal((await fetch(`${base}/readyz`)).status, 503, `${base}/readyz while shedding`);
      }
    } finally {
      await held.release();
    }
    assert.equal(monitor.oldestWaitMs(), 0, 'nothing waits any more');
    x.h.clock.advance(OVERLOAD_CALM_MS);
    await assertRecovers(x);
  });
});

describe('one instance saturated: the event loop held past OVERLOAD_MAX_EVENT_LOOP_DELAY_MS', () => {
  let x: Instance;
  before(async () => {
    // Well above a slow PGlite statement on a busy machine, so that only the test's own block counts.
    x = await startInstance({ OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '400' });
  });
  after(async () => {
    await x.h.close();
  });

  test('new requests are 503 with Retry-After and /readyz 503 until the loop is calm again', async () => {
    const monitor = x.h.service.ctx.overload;
    await waitFor(
      '/readyz to answer 200 before',
      async () => (await fetch(`${x.urls.api}/readyz`)).status === 200,
    );
    // Held turn after turn, as a saturated process is: one long turn is a single sample among the
    // window's turns, and a busy test process can have enough others that its p99 misses it.
    for (let turn = 0; turn < 4; turn++) {
      busyWait(600);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await waitFor('the monitor to see the delay', () => monitor.overloaded, 5_000);
    await assertShed(x);
    await assertRecovers(x);
  });
});

describe('development never sheds', () => {
  let x: Instance;
  before(async () => {
    x = await startInstance({
      NODE_ENV: 'development',
      OVERLOAD_MAX_QUEUED: '1',
      OVERLOAD_MAX_QUEUE_TIME_MS: '1',
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '1',
    });
  });
  after(async () => {
    await x.h.close();
  });

  test('whatever the settings say, requests in hand and waiting long shed nothing', async () => {
    const monitor = x.h.service.ctx.overload;
    assert.equal(monitor.enabled, false);
    const held = await holdCreations(x, 2);
    try {
      x.h.clock.advance(10_000);
      busyWait(600);
      await sleep(OVERLOAD_WINDOW_MS * 2);
      // No credential: answered 401 by the guard without the (locked) database, unless shed first.
      const events = await fetch(`${x.urls.api}/v1/events`);
      assert.equal(events.status, 401);
      assert.equal(monitor.overloaded, false);
    } finally {
      await held.release();
    }
  });
});
