import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Agent, get, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createHost } from '../../src/platform/http.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { writeMigratedDir } from '../helpers/db-templates.ts';
import { startHarness } from '../helpers/harness.ts';
import { startMain } from '../helpers/process.ts';

test('first start seeds the demo organization; SIGTERM finishes in-flight requests, then exits 0', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-'));
  try {
    // Migrated already, as after `db migrate`: a first start migrating is release.test.ts's, and
    // seconds of CPU here. What is seeded comes from the start itself.
    await writeMigratedDir(dataDir);
    const child = await startMain({ DATA_DIR: dataDir, NODE_ENV: 'development', DATABASE_URL: '' });
    assert.match(child.output(), /client_secret +sk_/);
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8'));
    assert.match(demo.client_id, /^cli_/);
    assert.match(demo.publishable_key, /^pk_/);
    assert.match(demo.admin_api_key, /^adm_/);
    assert.equal(demo.event_ids.length, 4);
    // the banner and demo.json say where the demo client works, and the development log says
    // local webhook receivers are accepted
    const origins = ['http://localhost:5173', 'http://127.0.0.1:5173'];
    assert.deepEqual(demo.allowed_domains, origins);
    assert.deepEqual(demo.return_url_domains, origins);
    assert.match(child.output(), /allowed domains +http:\/\/localhost:5173, http:\/\/127\.0\.0\.1:5173/);
    assert.match(child.output(), /return URLs +http:\/\/localhost:5173, http:\/\/127\.0\.0\.1:5173/);
    assert.match(child.output(), /webhook URLs on this machine and private networks are accepted/);

    // An in-flight request: headers and half the body sent before SIGTERM, the rest after.
    const port = Number(new URL(child.urls.api).port);
    const body = `grant_type=client_credentials&client_id=${demo.client_id}&client_secret=${demo.client_secret}`;
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let response = '';
    socket.on('data', (d) => (response += d));
    const closed = new Promise((r) => socket.once('close', r));
    socket.write(
      `POST /v1/oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 20)}`,
    );
    await new Promise((r) => setTimeout(r, 200));
    child.process.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    // Not accepting new connections any more.
    await assert.rejects(fetch(`${child.urls.api}/healthz`));
    socket.write(body.slice(20));
    await closed;
    assert.match(response, /^HTTP\/1\.1 200/);
    assert.match(response, /"access_token":"pat_/);
    assert.equal(await child.exited, 0);
    assert.match(child.output(), /"msg":"stopped"/);

    // A second start on the same data does not seed again.
    const again = await startMain({ DATA_DIR: dataDir, NODE_ENV: 'development', DATABASE_URL: '' });
    assert.doesNotMatch(again.output(), /client_secret +sk_/);
    const res = await fetch(`${again.urls.api}/readyz`);
    assert.equal(res.status, 200);
    again.process.kill('SIGTERM');
    assert.equal(await again.exited, 0);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('bad configuration fails at start with one line naming the variable', async () => {
  const { spawnSync } = await import('node:child_process');
  const { MAIN } = await import('../helpers/process.ts');
  const result = spawnSync(process.execPath, [MAIN], {
    env: { ...process.env, API_URL: 'not a url' },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(result.status, 2);
  assert.match(result.stderr, /^configuration error: API_URL must be an absolute http\(s\) URL/m);
});

// Node's own close would wait for these clients (or the keep-alive timeout): the time-out only
// ends a test that hangs.
test(
  'a close ends connections with no request at once, and waits only for responses in flight',
  { timeout: 30_000 },
  async () => {
    const h = await startHarness();
    const host = createHost(h.service.ctx, { name: 'api', logger: createLogger('silent') });
    const body = new PassThrough();
    host.get('/stream', async (_request, reply) => reply.type('text/plain').send(body));
    const url = await host.listen({ host: '127.0.0.1', port: 0 });
    const agents = [new Agent({ keepAlive: true }), new Agent({ keepAlive: true })];
    const get200 = (path: string, agent: Agent) =>
      new Promise<IncomingMessage>((resolve) => get(`${url}${path}`, { agent }, resolve));
    // A connection that never sends a request (a proxy's spare), one kept alive after a request,
    // and a response in flight whose headers and first part went out before the close.
    const spare = connect(Number(new URL(url).port), '127.0.0.1');
    try {
      await once(spare, 'connect');
      const kept = await get200('/healthz', agents[0]!);
      const keptSocket = kept.socket;
      kept.resume();
      await once(kept, 'end');
      // Node writes the headers with the first part.
      const response = get200('/stream', agents[1]!);
      body.write('first\n');
      const streamed = await response;
      streamed.setEncoding('utf8');
      let text = String((await once(streamed, 'data'))[0]);
      streamed.on('data', (part: string) => (text += part));

      const idleClosed = Promise.all([once(spare, 'close'), once(keptSocket, 'close')]);
      const closing = host.close();
      await idleClosed;
      body.end('last\n');
      await once(streamed, 'end');
      await closing;
      assert.equal(text, 'first\nlast\n', 'the response in flight was written whole');
    } finally {
      spare.destroy();
      for (const agent of agents) agent.destroy();
      body.end();
      await host.close();
      await h.close();
    }
  },
);
