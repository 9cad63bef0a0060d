import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { Type } from 'typebox';
import { createHost, envelope, type Host } from '../../src/platform/http.ts';
import { compileEverySchema } from '../../src/platform/validation.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { ApiError } from '../../src/platform/errors.ts';
import { bearer, getToken, makePartner, startHarness, type Harness } from '../helpers/harness.ts';

let h: Harness;
let host: Host;
const lines: Record<string, unknown>[] = [];

before(async () => {
  h = await startHarness();
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  // A host built by the same platform code, with routes that exercise bodies and failures.
  host = createHost(h.service.ctx, { name: 'api', logger: createLogger('info', sink) });
  host.post(
    '/things',
    {
      schema: {
        body: Type.Object(
          { name: Type.String({ minLength: 1 }), count: Type.Integer({ minimum: 1 }) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => envelope(201, 'created', request.body),
  );
  host.get('/boom', async () => {
    throw new Error('database password=hunter2 exploded');
  });
  host.get('/teapot', async () => {
    throw new ApiError('sale_closed', 'Registration is closed.');
  });
  host.get('/secret-log', async (request) => {
    request.log.info({ client_secret: 'sk_should_not_appear', access_token: 'pat_nope' }, 'credentials seen');
    return envelope(200, 'ok', {});
  });
  await host.ready();
});
after(async () => {
  await host.close();
  await h.close();
});

interface ErrorBody {
  code: number;
  message: string;
  error_code: string;
  request_id: string;
}

function assertErrorEnvelope(
  res: {
    statusCode: number;
    headers: Record<string, unknown>;
    json(): ErrorBody & { errors?: { field: string }[] };
  },
  status: number,
  code: string,
) {
  assert.equal(res.statusCode, status);
  const body = res.json();
  assert.equal(body.code, status);
  assert.equal(body.error_code, code);
  assert.equal(typeof body.message, 'string');
  assert.ok(body.message.length > 0);
  assert.match(body.request_id, /^req_[A-Za-z0-9]{24}$/);
  assert.equal(res.headers['x-request-id'], body.request_id);
}

describe('HTTP platform', () => {
  test('success uses the envelope {code, message, data}', async () => {
    const res = await host.inject({ method: 'POST', url: '/things', payload: { name: 'a', count: 2 } });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { code: 201, message: 'created', data: { name: 'a', count: 2 } });
  });

  test('unknown routes are 404 not_found in the envelope on every host', async () => {
    for (const app of [h.service.api, h.service.site, host]) {
      assertErrorEnvelope(await app.inject({ url: '/nope/nothing' }), 404, 'not_found');
    }
    // The APP host's other paths are the organizer app's, answered with its HTML page
    // (test/app/not-found.test.ts); its admin API keeps the envelope.
    assertErrorEnvelope(await h.service.app.inject({ url: '/admin/v1/nope' }), 404, 'not_found');
  });

  test('every response on every host carries X-Request-Id, each one new', async () => {
    const ids = new Set<string>();
    for (const app of [h.service.api, h.service.site, h.service.app]) {
      for (const url of ['/healthz', '/readyz', '/missing']) {
        const res = await app.inject({ url });
        const id = String(res.headers['x-request-id']);
        assert.match(id, /^req_/);
        ids.add(id);
      }
    }
    assert.equal(ids.size, 9);
  });

  test('an incoming X-Request-Id is not trusted as ours', async () => {
    const res = await host.inject({ url: '/healthz', headers: { 'x-request-id': 'forged' } });
    assert.notEqual(res.headers['x-request-id'], 'forged');
  });

  test('malformed JSON is 400 validation_failed', async () => {
    const res = await host.inject({
      method: 'POST',
      url: '/things',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    assertErrorEnvelope(res, 400, 'validation_failed');
  });

  test('an empty JSON body is 400 validation_failed', async () => {
    const res = await host.inject({
      method: 'POST',
      url: '/things',
      headers: { 'content-type': 'application/json' },
    });
    assertErrorEnvelope(res, 400, 'validation_failed');
  });

  test('schema violations list every field error', async () => {
    const res = await host.inject({
      method: 'POST',
      url: '/things',
      payload: { name: '', count: '3', extra: 1 },
    });
    assertErrorEnvelope(res, 400, 'validation_failed');
    const fields = res
      .json()
      .errors.map((e: { field: string }) => e.field)
      .sort();
    assert.deepEqual(fields, ['count', 'extra', 'name']);
  });

  test('a body over 64 KB is 413 payload_too_large', async () => {
    const res = await host.inject({
      method: 'POST',
      url: '/things',
      payload: JSON.stringify({ name: 'x'.repeat(70_000), count: 1 }),
      headers: { 'content-type': 'application/json' },
    });
    assertErrorEnvelope(res, 413, 'payload_too_large');
  });

  test('a body that is not JSON is 415 unsupported_media_type', async () => {
    for (const type of [
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const res = await host.inject({
        method: 'POST',
        url: '/things',
        payload: 'name=a',
        headers: { 'content-type': type },
      });
      assertErrorEnvelope(res, 415, 'unsupported_media_type');
    }
  });

  test('an unexpected failure is a 500 in the envelope that shows no internals', async () => {
    const res = await host.inject({ url: '/boom' });
    assertErrorEnvelope(res, 500, 'internal_error');
    assert.doesNotMatch(res.body, /hunter2|exploded|stack/);
    const logged = lines.find((l) => l.request_id === res.json().request_id && l.level === 50);
    assert.ok(logged, 'the failure is logged with its request id');
  });

  test('ApiError renders its registered status', async () => {
    assertErrorEnvelope(await host.inject({ url: '/teapot' }), 409, 'sale_closed');
  });

  test('every log line of a request carries its request id; credentials are redacted', async () => {
    const res = await host.inject({
      url: '/secret-log',
      headers: { authorization: 'Bearer pat_supersecret', 'x-service-publishable-key': 'pk_visible_not' },
    });
    const id = res.headers['x-request-id'];
    const mine = lines.filter((l) => l.request_id === id);
    assert.ok(mine.length >= 3, 'incoming, handler and completed lines');
    const text = JSON.stringify(mine);
    assert.doesNotMatch(text, /pat_supersecret|pk_visible_not|sk_should_not_appear|pat_nope/);
    assert.match(text, /\[redacted\]/);
  });

  test('at warn, a request that logs nothing makes no per-request logger; one that fails logs with its id', async () => {
    const warnLines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) warnLines.push(JSON.parse(line));
        done();
      },
    });
    const logger = createLogger('warn', sink);
    const quiet = createHost(h.service.ctx, { name: 'api', logger });
    quiet.get('/fine', async (request) => {
      request.log.info('not at warn');
      return envelope(200, 'ok', {});
    });
    quiet.get('/boom', async () => {
      throw new Error('exploded');
    });
    await quiet.ready();
    try {
      // the host's logger, as createHost made it: count the children made from it from now on
      const hostLogger = quiet.log as unknown as { child: (...a: unknown[]) => unknown };
      const child = hostLogger.child.bind(hostLogger);
      let children = 0;
      hostLogger.child = (...a: unknown[]) => {
        children++;
        return child(...a);
      };
      assert.equal((await quiet.inject({ url: '/fine' })).statusCode, 200);
      assert.equal(children, 0, 'no child logger for a request that logged nothing at warn');
      assert.equal(warnLines.length, 0);
      const res = await quiet.inject({ url: '/boom' });
      assert.equal(res.statusCode, 500);
      assert.equal(children, 1);
      const logged = warnLines.find((l) => l.request_id === res.json().request_id);
      assert.ok(logged, 'the failure is logged with its request id');
      assert.equal(logged.level, 50);
    } finally {
      await quiet.close();
    }
  });

  test('healthz and readyz answer on every host', async () => {
    for (const app of [h.service.api, h.service.site, h.service.app]) {
      const live = await app.inject({ url: '/healthz' });
      assert.equal(live.statusCode, 200);
      assert.equal(live.json().data.status, 'ok');
      // what `ticketing trigger` reads to refuse a service taking real payments
      assert.equal(live.json().data.payments, 'simulator');
      const ready = await app.inject({ url: '/readyz' });
      assert.equal(ready.statusCode, 200);
      assert.equal(ready.json().data.status, 'ready');
      assert.equal(ready.json().data.database, h.service.ctx.database.kind);
    }
  });

  test('odd URLs never reach a 500', async () => {
    for (const url of [
      '/%',
      '/v1/events/%E0%A4%A',
      `/v1/events/${'x'.repeat(5000)}`,
      '/v1/events?limit=1&limit=2',
      '/v1//events',
    ]) {
      const res = await h.service.api.inject({ url });
      assert.ok(res.statusCode < 500, `${url}: ${res.statusCode}`);
      assert.match(String(res.headers['x-request-id']), /^req_/);
    }
  });
});

describe('unknown routes whatever the body', () => {
  /** Bodies a parser or a body limit would refuse before routing, if it ran first. */
  const BODIES = [
    { name: 'an empty JSON body', headers: { 'content-type': 'application/json' }, payload: '' },
    { name: 'invalid JSON', headers: { 'content-type': 'application/json' }, payload: '{"name": ' },
    {
      name: 'a huge Content-Length',
      headers: { 'content-type': 'application/json', 'content-length': '99999999' },
      payload: '{}',
    },
    { name: 'a body of a type no route takes', headers: { 'content-type': 'text/csv' }, payload: 'a,b' },
  ];

  test('are 404 not_found in the envelope on the API, SITE and admin API', async () => {
    const targets = [
      { app: h.service.api, url: '/v1/no-such-thing' },
      { app: h.service.api, url: '/nope' },
      { app: host, url: '/nope' },
      { app: h.service.site, url: '/nope' },
      { app: h.service.app, url: '/admin/v1/no-such-thing' },
    ];
    for (const { app, url } of targets) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        for (const body of BODIES) {
          const res = await app.inject({ method, url, headers: body.headers, payload: body.payload });
          assert.equal(res.statusCode, 404, `${method} ${url} with ${body.name}: ${res.body}`);
          assertErrorEnvelope(res, 404, 'not_found');
        }
      }
    }
  });

  test("are the host's own not-found page on the checkout pages and the organizer app", async () => {
    for (const { app, url } of [
      { app: h.service.site, url: '/checkout/cs_0000000000000000000000/no/such/step' },
      { app: h.service.app, url: '/no/such/page' },
    ]) {
      for (const body of BODIES) {
        const res = await app.inject({ method: 'POST', url, headers: body.headers, payload: body.payload });
        assert.equal(res.statusCode, 404, `${url} with ${body.name}: ${res.body.slice(0, 200)}`);
        assert.match(String(res.headers['content-type']), /^text\/html/);
        assert.match(String(res.headers['x-request-id']), /^req_/);
      }
    }
  });

  test('a partner credential on an unknown SITE or APP path is still refused first', async () => {
    const partner = await makePartner(h);
    for (const app of [h.service.site, h.service.app]) {
      const res = await app.inject({
        method: 'POST',
        url: '/nope',
        headers: { 'content-type': 'application/json', 'x-service-publishable-key': partner.publishableKey },
        payload: '',
      });
      assertErrorEnvelope(res, 401, 'partner_credential_not_accepted');
    }
  });

  test('existing routes keep their 400 and 413 for the same bodies', async () => {
    const [empty, invalid, huge] = BODIES;
    for (const body of [empty!, invalid!]) {
      const res = await host.inject({
        method: 'POST',
        url: '/things',
        headers: body.headers,
        payload: body.payload,
      });
      assertErrorEnvelope(res, 400, 'validation_failed');
    }
    const res = await host.inject({
      method: 'POST',
      url: '/things',
      headers: huge!.headers,
      payload: huge!.payload,
    });
    assertErrorEnvelope(res, 413, 'payload_too_large');
    // and a real partner route, with its credential (without one it is 401 before the body)
    const token = await getToken(h, await makePartner(h));
    for (const body of [empty!, invalid!]) {
      const created = await h.service.api.inject({
        method: 'POST',
        url: '/v1/checkout-sessions',
        headers: { ...bearer(token), ...body.headers },
        payload: body.payload,
      });
      assertErrorEnvelope(created, 400, 'validation_failed');
    }
  });
});

describe('NUL characters', () => {
  test('in a body or query is validation_failed and in a path is not_found, before reaching the database', async () => {
    const body = await host.inject({
      method: 'POST',
      url: '/things',
      payload: { name: 'a\u0000b', count: 1 },
    });
    assertErrorEnvelope(body, 400, 'validation_failed');
    assert.equal(body.json().errors[0].field, 'body.name');
    // with a credential: without one the answer is 401 before any field is looked at
    const token = await getToken(h, await makePartner(h));
    const query = await h.service.api.inject({ url: '/v1/orders?event_id=a%00', headers: bearer(token) });
    assertErrorEnvelope(query, 400, 'validation_failed');
    assert.equal(query.json().errors?.[0]?.field, 'query.event_id');
    const path = await h.service.api.inject({ url: '/v1/orders/ord_%00', headers: bearer(token) });
    assertErrorEnvelope(path, 404, 'not_found');
  });
});

describe('schemas compiled when first used', () => {
  test('every route schema of the three hosts compiles; one that cannot fails compileEverySchema', async () => {
    // The hosts built so far in this file put theirs off: compiling them all is the proof.
    assert.ok(compileEverySchema() > 100);
    assert.equal(compileEverySchema(), 0, 'each is compiled once');

    const broken = createHost(h.service.ctx, { name: 'api', logger: createLogger('silent') });
    broken.post(
      '/broken',
      { schema: { body: { type: 'object', properties: { when: { type: 'instant' } } } } },
      async () => envelope(200, 'ok', null),
    );
    await broken.ready();
    try {
      assert.throws(() => compileEverySchema(), /schema is invalid/);
    } finally {
      await broken.close();
    }
  });
});
