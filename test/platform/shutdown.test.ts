import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMain } from '../helpers/process.ts';

test('first start seeds the demo organization; SIGTERM finishes in-flight requests, then exits 0', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-'));
  try {
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
