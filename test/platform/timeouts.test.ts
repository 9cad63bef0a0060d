// Slow clients are cut off: a body that does not arrive in time gets 408 request_timeout in the
// envelope and the connection closes; so does a header block too slow; an idle kept-alive
// connection is closed. Short limits here (the defaults are 10 s, 10 s and 72 s).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { bearer, getToken, makeEvent, makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { assertEnvelope, exchange, target } from './raw-http.ts';

let h: Harness;
let api: { host: string; port: number };
let site: { host: string; port: number };
let token: string;
let eventId: string;

before(async () => {
  h = await startHarness({
    env: { REQUEST_HEADERS_TIMEOUT_MS: '500', REQUEST_BODY_TIMEOUT_MS: '500', KEEP_ALIVE_TIMEOUT_MS: '300' },
  });
  const urls = await h.service.listen({ api: 0, site: 0, app: 0 });
  api = target(urls.api);
  site = target(urls.site);
  const partner = await makePartner(h);
  token = await getToken(h, partner);
  eventId = (await makeEvent(h, partner)).id;
});
after(async () => {
  await h.close();
});

const HEAD = 'Host: example.org\r\n';
/** How long an exchange waits for the server to close: several times each limit, and under the defaults. */
const CUT_OFF_MS = 4000;

describe('request time limits', () => {
  test('a body that stalls gets 408 request_timeout in the envelope, then the connection closes', async () => {
    for (const path of ['/v1/checkout-sessions', '/v1/orders']) {
      const result = await exchange(
        api,
        [
          `POST ${path} HTTP/1.1\r\n${HEAD}Authorization: ${bearer(token).authorization}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 60000\r\n\r\n{',
        ],
        CUT_OFF_MS,
      );
      assert.ok(result.closed, `${path}: the connection closes within ${CUT_OFF_MS} ms`);
      assert.equal(result.responses.length, 1, result.raw);
      assertEnvelope(result.responses[0], 408, 'request_timeout', path);
      assert.equal(result.responses[0]!.headers.connection, 'close');
    }
  });

  test('a body that trickles in too slowly is cut off the same way', async () => {
    const steps = [
      `POST /v1/checkout-sessions HTTP/1.1\r\n${HEAD}Authorization: ${bearer(token).authorization}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 200\r\n\r\n',
      ...Array.from({ length: 40 }, () => [{ pause: 100 }, ' ']).flat(),
    ];
    const result = await exchange(api, steps, CUT_OFF_MS);
    assert.ok(result.closed, `closed within ${CUT_OFF_MS} ms`);
    assertEnvelope(result.responses[0], 408, 'request_timeout', 'trickled body');
  });

  test('a body that arrives in time is worked on as usual', async () => {
    const body = JSON.stringify({
      event_id: eventId,
      on_success_url: 'https://shop.example.org/thanks',
      on_cancel_url: 'https://shop.example.org/cart',
    });
    const result = await exchange(
      api,
      [
        `POST /v1/checkout-sessions HTTP/1.1\r\n${HEAD}Authorization: ${bearer(token).authorization}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
        { pause: 200 },
        body,
      ],
      1500,
    );
    assert.equal(result.responses.length, 1, result.raw);
    assert.equal(result.responses[0]!.status, 201, result.raw);
    assert.equal(JSON.parse(result.responses[0]!.body).code, 201);
  });

  test('a header block that never ends is cut off with 408 request_timeout', async () => {
    for (const [name, to] of Object.entries({ api, site })) {
      const steps = [
        `GET /healthz HTTP/1.1\r\n${HEAD}`,
        ...Array.from({ length: 40 }, (_, i) => [{ pause: 100 }, `X-Slow-${i}: a\r\n`]).flat(),
      ];
      const result = await exchange(to, steps, CUT_OFF_MS);
      assert.ok(result.closed, `${name}: the connection closes within ${CUT_OFF_MS} ms`);
      assertEnvelope(result.responses[0], 408, 'request_timeout', `${name}: slow headers`);
    }
  });

  test('a connection that sends nothing is closed', async () => {
    const result = await exchange(api, [], CUT_OFF_MS);
    assert.ok(result.closed, `closed by the server within ${CUT_OFF_MS} ms`);
    if (result.responses.length > 0) assertEnvelope(result.responses[0], 408, 'request_timeout', 'silent');
  });

  test('an idle kept-alive connection is closed after its request was answered', async () => {
    const result = await exchange(api, [`GET /healthz HTTP/1.1\r\n${HEAD}\r\n`], CUT_OFF_MS);
    assert.ok(result.closed, `closed by the server within ${CUT_OFF_MS} ms`);
    assert.equal(result.responses.length, 1);
    assert.equal(result.responses[0]!.status, 200);
  });
});

describe('time limit settings', () => {
  test('defaults: 10 s for headers and for a body, 72 s for an idle connection', () => {
    assert.deepEqual(loadConfig({ NODE_ENV: 'test' }).http, {
      headersTimeoutMs: 10_000,
      bodyTimeoutMs: 10_000,
      keepAliveTimeoutMs: 72_000,
    });
  });

  test('a value that is not a positive number fails at start naming the variable', () => {
    for (const name of ['REQUEST_HEADERS_TIMEOUT_MS', 'REQUEST_BODY_TIMEOUT_MS', 'KEEP_ALIVE_TIMEOUT_MS']) {
      assert.throws(
        () => loadConfig({ NODE_ENV: 'test', [name]: '0' }),
        (error: unknown) => error instanceof ConfigError && error.message.includes(name),
      );
    }
  });
});
