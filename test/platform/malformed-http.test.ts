// Malformed HTTP on a real listener: whatever Node's parser refuses is answered in the error
// envelope with an X-Request-Id wherever an answer can still be written, never a 5xx, and the
// connection then closes. An answer already begun is never interrupted by ours.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { createHost, type Host } from '../../src/platform/http.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { startHarness, TEST_ADMIN_KEY, type Harness } from '../helpers/harness.ts';
import { assertEnvelope, exchange, target, type RawResponse } from './raw-http.ts';

let h: Harness;
let hosts: Record<'api' | 'site' | 'app', { host: string; port: number }>;

before(async () => {
  h = await startHarness();
  const urls = await h.service.listen({ api: 0, site: 0, app: 0 });
  hosts = { api: target(urls.api), site: target(urls.site), app: target(urls.app) };
});
after(async () => {
  await h.close();
});

const HEAD = 'Host: example.org\r\n';

/** Requests the parser refuses before any route sees them, with the answer each gets. */
const HEADER_CASES: Array<{ name: string; request: string; status: number; code: string }> = [
  {
    name: 'an oversized header block',
    request: `GET /healthz HTTP/1.1\r\n${HEAD}X-Padding: ${'a'.repeat(20_000)}\r\n\r\n`,
    status: 431,
    code: 'request_header_fields_too_large',
  },
  {
    name: 'many headers over the limit together',
    request: `GET /healthz HTTP/1.1\r\n${HEAD}${Array.from({ length: 400 }, (_, i) => `X-H${i}: ${'b'.repeat(60)}\r\n`).join('')}\r\n`,
    status: 431,
    code: 'request_header_fields_too_large',
  },
  {
    name: 'a request line that is not one',
    request: 'BROKEN\r\n\r\n',
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'an unknown HTTP version',
    request: `GET /healthz HTTP/7.0\r\n${HEAD}\r\n`,
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'a space inside the request target',
    request: `GET /v1/events /x HTTP/1.1\r\n${HEAD}\r\n`,
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'a control character in the request target',
    request: `GET /v1/ev\u0001ents HTTP/1.1\r\n${HEAD}\r\n`,
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'a method with illegal characters',
    request: `G(T /healthz HTTP/1.1\r\n${HEAD}\r\n`,
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'Content-Length together with Transfer-Encoding',
    request: `POST /v1/oauth/token HTTP/1.1\r\n${HEAD}Content-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'two different Content-Lengths',
    request: `POST /v1/oauth/token HTTP/1.1\r\n${HEAD}Content-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcdef`,
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'a Content-Length that is not a number',
    request: `POST /v1/oauth/token HTTP/1.1\r\n${HEAD}Content-Type: application/json\r\nContent-Length: 5x\r\n\r\nabcde`,
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'a Transfer-Encoding other than chunked last',
    request: `POST /v1/oauth/token HTTP/1.1\r\n${HEAD}Content-Type: application/json\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n`,
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'a NUL in a header value',
    request: `GET /healthz HTTP/1.1\r\n${HEAD}X-Note: a\u0000b\r\n\r\n`,
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'a NUL in an Authorization header',
    request: `GET /v1/events HTTP/1.1\r\n${HEAD}Authorization: Bearer pat_\u0000x\r\n\r\n`,
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'a space inside a header name',
    request: `GET /healthz HTTP/1.1\r\n${HEAD}Bad Header: x\r\n\r\n`,
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'a folded header line',
    request: `GET /healthz HTTP/1.1\r\n${HEAD}X-Note: a\r\n b\r\n\r\n`,
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'bare LF line endings',
    request: 'GET /healthz HTTP/1.1\nHost: example.org\n\n',
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'an HTTP/1.1 request without Host',
    request: 'GET /healthz HTTP/1.1\r\n\r\n',
    status: 400,
    code: 'validation_failed',
  },
  {
    name: 'an Expect other than 100-continue',
    request: `GET /healthz HTTP/1.1\r\n${HEAD}Expect: 200-ok\r\n\r\n`,
    status: 417,
    code: 'expectation_failed',
  },
  {
    name: 'an Expect other than 100-continue on a POST with its body',
    request: `POST /v1/checkout-sessions HTTP/1.1\r\n${HEAD}Content-Type: application/json\r\nContent-Length: 2\r\nExpect: 102-processing\r\n\r\n{}`,
    status: 417,
    code: 'expectation_failed',
  },
  {
    name: 'CONNECT',
    request: `CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n`,
    status: 405,
    code: 'method_not_allowed',
  },
];

/** The answer is the one expected and the connection closes after it. */
async function assertRefused(
  to: { host: string; port: number },
  request: string | Buffer,
  status: number,
  code: string,
  what: string,
) {
  const result = await exchange(to, [request]);
  assert.ok(result.closed, `${what}: the connection closes`);
  assert.equal(
    result.responses.length,
    1,
    `${what}: one answer (got ${JSON.stringify(result.raw.slice(0, 200))})`,
  );
  assertEnvelope(result.responses[0], status, code, what);
  return result.responses[0]!;
}

describe('malformed HTTP', () => {
  test('each malformed request gets the envelope with an X-Request-Id on every host, and the connection closes', async () => {
    for (const [name, to] of Object.entries(hosts)) {
      for (const c of HEADER_CASES)
        await assertRefused(to, c.request, c.status, c.code, `${name}: ${c.name}`);
    }
  });

  test('an unknown route is answered 404 without waiting for a body it declared', async () => {
    for (const [name, to] of Object.entries(hosts)) {
      const path = name === 'app' ? '/admin/v1/nope' : '/v1/nope';
      const result = await exchange(
        to,
        [
          `POST ${path} HTTP/1.1\r\n${HEAD}Content-Type: application/json\r\nContent-Length: 99999999\r\n\r\n{`,
        ],
        1000,
      );
      assert.equal(result.responses.length, 1, `${name}: ${result.raw.slice(0, 200)}`);
      assertEnvelope(result.responses[0], 404, 'not_found', name);
    }
  });

  test('the token endpoint refuses an Expect other than 100-continue in its own OAuth shape', async () => {
    const result = await exchange(hosts.api, [
      `POST /v1/oauth/token HTTP/1.1\r\n${HEAD}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 29\r\nExpect: 102-processing\r\n\r\ngrant_type=client_credentials`,
    ]);
    assert.equal(result.responses.length, 1, result.raw.slice(0, 200));
    const [answer] = result.responses;
    assert.equal(answer!.status, 400);
    assert.match(answer!.headers['x-request-id'] ?? '', /^req_/);
    const body = JSON.parse(answer!.body) as { error: string; error_description: string };
    assert.equal(body.error, 'invalid_request');
    assert.match(body.error_description, /Expect/);
  });

  test('bad chunked encoding of a body being read gets the envelope', async () => {
    const bodies: Record<string, string> = {
      'a chunk size that is not hex': 'zz\r\nhello\r\n0\r\n\r\n',
      'a chunk size too large to be a number': 'ffffffffffffffffffffffff\r\nhello\r\n0\r\n\r\n',
      'a chunk without its CRLF': '5\r\nhelloXX0\r\n\r\n',
      'a chunk extension with a control character': '5;a=\u0001\r\nhello\r\n0\r\n\r\n',
    };
    // Routes that read the body before they answer: the token endpoint and the admin API.
    const routes = [
      {
        to: hosts.api,
        head: `POST /v1/oauth/token HTTP/1.1\r\n${HEAD}Content-Type: application/x-www-form-urlencoded\r\n`,
      },
      {
        to: hosts.app,
        head: `POST /admin/v1/organizations HTTP/1.1\r\n${HEAD}Authorization: Bearer ${TEST_ADMIN_KEY}\r\nContent-Type: application/json\r\n`,
      },
    ];
    for (const route of routes) {
      for (const [name, body] of Object.entries(bodies)) {
        const request = `${route.head}Transfer-Encoding: chunked\r\n\r\n${body}`;
        await assertRefused(
          route.to,
          request,
          400,
          'validation_failed',
          `${route.head.split(' ')[1]}: ${name}`,
        );
      }
    }
  });

  test('a malformed request after a good one on a kept-alive connection is answered after the first answer', async () => {
    // Sent together (pipelined) and one after the other.
    const good = `GET /healthz HTTP/1.1\r\n${HEAD}\r\n`;
    for (const steps of [[good + 'BROKEN\r\n\r\n'], [good, { pause: 100 }, 'BROKEN\r\n\r\n']]) {
      const result = await exchange(hosts.api, steps);
      assert.ok(result.closed);
      assert.equal(result.responses.length, 2, result.raw);
      assert.equal(result.responses[0]!.status, 200);
      assert.deepEqual(JSON.parse(result.responses[0]!.body).data, { status: 'ok', payments: 'simulator' });
      assertEnvelope(result.responses[1], 400, 'validation_failed', 'the second request');
      assert.notEqual(
        result.responses[0]!.headers['x-request-id'],
        result.responses[1]!.headers['x-request-id'],
      );
    }
  });

  test('every request id of a client error is new', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const answer = await assertRefused(hosts.api, 'BROKEN\r\n\r\n', 400, 'validation_failed', `try ${i}`);
      ids.add(answer.headers['x-request-id']!);
    }
    assert.equal(ids.size, 5);
  });
});

describe('an answer already begun is never interrupted', () => {
  let host: Host;
  let to: { host: string; port: number };
  let releaseStream!: () => void;

  before(async () => {
    host = createHost(h.service.ctx, { name: 'api', logger: createLogger('silent') });
    // An answer written in two parts, the second when the test says.
    host.get('/streamed', async (_request, reply) => {
      const body = new Readable({ read() {} });
      body.push('first part;');
      releaseStream = () => {
        body.push('second part');
        body.push(null);
      };
      return reply.type('text/plain').send(body);
    });
    // An answer sent before the body is read.
    host.post(
      '/early',
      { onRequest: async (_request, reply) => reply.code(202).send({ early: true }) },
      async () => ({}),
    );
    await host.listen({ port: 0, host: '127.0.0.1' });
    to = { host: '127.0.0.1', port: (host.server.address() as { port: number }).port };
  });
  after(async () => {
    await host.close();
  });

  test('a malformed request while an answer is being written waits for it, then gets the envelope', async () => {
    const pending = exchange(to, [
      `GET /streamed HTTP/1.1\r\n${HEAD}\r\n`,
      { pause: 150 },
      'BROKEN\r\n\r\n',
      { pause: 150 },
    ]);
    // The malformed request has arrived while the first answer is half written.
    await new Promise((resolve) => setTimeout(resolve, 400));
    releaseStream();
    const result = await pending;
    assert.ok(result.closed);
    assert.equal(result.responses.length, 2, result.raw);
    const [first, second] = result.responses as [RawResponse, RawResponse];
    assert.equal(first.status, 200);
    assert.equal(first.body, 'first part;second part', 'the first answer is whole');
    assertEnvelope(second, 400, 'validation_failed', 'after the streamed answer');
  });

  test('bad chunking in a body whose request was already answered closes without a second answer', async () => {
    const result = await exchange(to, [
      `POST /early HTTP/1.1\r\n${HEAD}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      { pause: 150 },
      'zz\r\n',
    ]);
    assert.ok(result.closed);
    assert.equal(result.responses.length, 1, result.raw);
    assert.equal(result.responses[0]!.status, 202);
    assert.deepEqual(JSON.parse(result.responses[0]!.body), { early: true });
  });
});
