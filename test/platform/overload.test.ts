// Load shedding (platform/overload.ts): the monitor's thresholds and hysteresis on an injected
// clock and delay sampler; then one instance saturated for real, on loopback, both ways: requests
// held in hand past OVERLOAD_MAX_QUEUED (the database locked under them), and the event loop
// blocked by this test's own busy loop. Each time new requests are 503 with Retry-After (JSON on
// the API, an HTML page on the checkout), /readyz is 503 and /healthz 200, the held requests
// finish, and the instance recovers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import {
  eventLoopDelaySampler,
  OVERLOAD_CALM_MS,
  OVERLOAD_WINDOW_MS,
  OverloadMonitor,
  overloadMonitor,
  type DelaySampler,
} from '../../src/platform/overload.ts';
import { bearer, getToken, makeEvent, makePartner, startHarness } from '../helpers/harness.ts';

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

describe('overload monitor', () => {
  test('enters on a slow window, and leaves only after both signals stayed calm long enough', () => {
    const delays = [150, 250, 50, 150, 40, 40, 40, 40, 40];
    let now = 0;
    const monitor = new OverloadMonitor(
      { maxEventLoopDelayMs: 200, maxQueued: 0, retryAfterSeconds: 3 },
      { sampler: scriptedSampler(delays), now: () => now },
    );
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
    step(false, 'calm for 2000 ms: taking requests again');

    const error = monitor.error();
    assert.equal(error.status, 503);
    assert.equal(error.code, 'service_unavailable');
    assert.deepEqual(error.headers, { 'Retry-After': '3' });
  });

  test('requests in hand: shed on arrival at the limit, taken again once half of them are answered', () => {
    let now = 0;
    const sampler = scriptedSampler([]);
    const monitor = new OverloadMonitor(
      { maxEventLoopDelayMs: 0, maxQueued: 4, retryAfterSeconds: 5 },
      { sampler, now: () => now },
    );
    for (let i = 0; i < 4; i++) {
      assert.equal(monitor.accepts(), true, `request ${i + 1}`);
      monitor.begin();
    }
    assert.equal(monitor.accepts(), false, 'the fifth is shed');
    assert.equal(monitor.queued, 4, 'a shed request is not counted');
    monitor.end();
    assert.equal(monitor.accepts(), false, 'one answer below the limit is not enough');
    monitor.sample();
    assert.equal(monitor.overloaded, true, 'three in hand is over half the limit');
    monitor.end();
    monitor.sample(); // two in hand: calm from now
    now += OVERLOAD_CALM_MS - 1;
    monitor.sample();
    assert.equal(monitor.overloaded, true);
    now += 1;
    monitor.sample();
    assert.equal(monitor.overloaded, false);
    assert.equal(monitor.accepts(), true);
    monitor.start();
    monitor.stop();
    assert.equal(sampler.starts, 0, 'the delay is not sampled while its threshold is off');
  });

  test('0 turns each signal off', () => {
    const sampler = scriptedSampler([60_000, 60_000]);
    const monitor = new OverloadMonitor(
      { maxEventLoopDelayMs: 0, maxQueued: 0, retryAfterSeconds: 5 },
      { sampler },
    );
    for (let i = 0; i < 10_000; i++) monitor.begin();
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

function busyWait(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // the loop is held on purpose: this is the overload
  }
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const RETRY_AFTER = '7';

/** A saturated-instance run: a service listening on loopback, a partner, a token and an event. */
async function startInstance(env: Record<string, string>) {
  const h = await startHarness({ env: { OVERLOAD_RETRY_AFTER_SECONDS: RETRY_AFTER, ...env } });
  const urls = await h.service.listen({ api: 0, site: 0, app: 0 });
  const partner = await makePartner(h);
  const token = await getToken(h, partner);
  const event = await makeEvent(h, partner);
  return { h, urls, token, eventId: event.id };
}

type Instance = Awaited<ReturnType<typeof startInstance>>;

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
  assert.equal(overloadMonitor(x.h.service.ctx).overloaded, false);
  const events = await fetch(`${x.urls.api}/v1/events`, { headers: bearer(x.token) });
  assert.equal(events.status, 200);
  const page = await fetch(`${x.urls.site}/checkout/cs_0000000000000000`);
  assert.equal(page.status, 404, 'the checkout answers again (an unknown session)');
}

describe('one instance saturated: requests in hand past OVERLOAD_MAX_QUEUED', () => {
  let x: Instance;
  before(async () => {
    x = await startInstance({ OVERLOAD_MAX_QUEUED: '3' });
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
      assert.equal(overloadMonitor(x.h.service.ctx).queued, 0);
    } finally {
      socket.destroy();
    }
  });

  test('the next request is 503 with Retry-After, /readyz 503; the held ones finish; then it recovers', async () => {
    const monitor = overloadMonitor(x.h.service.ctx);
    const database = x.h.service.ctx.database;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockHeld = new Promise<void>((resolve) => (locked = resolve));
    // Creations wait on the table (on PGlite, on the one connection) for as long as the test holds it.
    const holding = database.transaction(async (tx) => {
      await database.rows(sql`LOCK TABLE checkout_sessions IN ACCESS EXCLUSIVE MODE`, tx);
      locked();
      await released;
    });
    await lockHeld;
    const held = Array.from({ length: 3 }, () =>
      fetch(`${x.urls.api}/v1/checkout-sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(x.token) },
        body: JSON.stringify({
          event_id: x.eventId,
          on_success_url: 'https://shop.example.org/thanks',
          on_cancel_url: 'https://shop.example.org/cart',
        }),
      }),
    );
    try {
      await waitFor('three requests in hand', () => monitor.queued === 3);
      await assertShed(x);
      assert.equal(monitor.queued, 3, 'shed requests are not taken in');
    } finally {
      release();
      await holding;
    }
    for (const response of await Promise.all(held)) {
      assert.equal(response.status, 201, 'a request taken in before the overload is served');
    }
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
    const monitor = overloadMonitor(x.h.service.ctx);
    await waitFor(
      '/readyz to answer 200 before',
      async () => (await fetch(`${x.urls.api}/readyz`)).status === 200,
    );
    busyWait(1200);
    await waitFor('the monitor to see the delay', () => monitor.overloaded, 5_000);
    await assertShed(x);
    await assertRecovers(x);
  });
});
