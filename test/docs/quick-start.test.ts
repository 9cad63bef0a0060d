// The quick start, executed: its sh blocks in order in one bash at the repository root, against a
// listening service on ports other than the defaults with a DATA_DIR other than .data, seeded with
// the demo organization, which writes DATA_DIR/demo.json as `npm start` does. The bash gets the
// service's settings (DATA_DIR, API_URL, SITE_URL, APP_URL) as a reader's terminal would, and
// nothing else the guide uses: `npm run -s cli -- env` must find the rest. Passes when the
// guide's receiver prints a verified order.paid for a paid order. Blocks marked
// "quick-start-test: skip" (starting the service, stopping the receiver) are the test's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findApiClient } from '../../src/auth/clients.ts';
import { seedDemo } from '../../src/demo/seed-demo.ts';
import { TEST_ADMIN_KEY, type Harness } from '../helpers/harness.ts';
import { freePort } from '../helpers/process.ts';
import { codeBlocks, readGuide, REPO, startDocsHarness } from './docs-helpers.ts';

const WAIT_MS = 120_000;

let h: Harness;
let urls: { api: string; site: string; app: string };
let dataDir: string;
let demoClientId: string;
let child: ChildProcess | undefined;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'quick-start-data-'));
  const { h: harness, ...hosts } = await startDocsHarness({ DATA_DIR: dataDir });
  h = harness;
  urls = hosts;
  const demo = await seedDemo(h.service.ctx, TEST_ADMIN_KEY);
  assert.ok(demo, 'the demo organization was seeded');
  assert.ok(existsSync(join(dataDir, 'demo.json')), 'the seed wrote demo.json into DATA_DIR');
  demoClientId = demo.client_id;
});

after(async () => {
  // The receiver outlives bash, in bash's process group.
  if (child?.pid) {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // the group is gone already
    }
  }
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

test(
  'the quick start, run as written, ends with a verified order.paid',
  { timeout: WAIT_MS + 30_000 },
  async () => {
    const blocks = codeBlocks(readGuide('quick-start.md'));
    const run = blocks.filter((b) => b.info === 'sh' && !b.note?.startsWith('quick-start-test: skip'));
    const skipped = blocks.filter((b) => b.info === 'sh' && b.note?.startsWith('quick-start-test: skip'));
    assert.ok(run.length >= 8, `sh blocks to run: ${run.length}`);
    assert.deepEqual(
      skipped.map((b) => b.text),
      ['npm ci && npm start', 'kill %1'],
      'only starting the service and stopping the receiver are left to the test',
    );
    // The reader's first command sets up the terminal; nothing else in the guide needs editing.
    assert.equal(run[0]!.text.split('\n')[0], 'eval "$(npm run -s cli -- env)"');
    const script = ['set -eo pipefail', ...run.map((b) => b.text)].join('\n');
    const receiverPort = await freePort();
    let output = '';
    const partnerOrigin = `http://localhost:${await freePort()}`;
    for (const url of Object.values(urls)) assert.doesNotMatch(url, /:400[0-2]$/, 'hosts off the defaults');
    child = spawn('bash', ['-c', script], {
      cwd: REPO,
      detached: true,
      env: {
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        HOME: process.env.HOME ?? dataDir,
        ...(process.env.NODE_COMPILE_CACHE && { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE }),
        // The settings the service was started with, as in the reader's terminal.
        DATA_DIR: dataDir,
        API_URL: urls.api,
        SITE_URL: urls.site,
        APP_URL: urls.app,
        RECEIVER_PORT: String(receiverPort),
        PARTNER_ORIGIN: partnerOrigin,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
    const verified = /verified order\.paid (ord_\w+) paid \(webhook-id (msg_\w+)\)/;
    const deadline = Date.now() + WAIT_MS;
    let code: number | null | undefined;
    void exited.then((c) => (code = c));
    while (!verified.test(output) && Date.now() < deadline && (code === undefined || code === 0)) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.match(output, verified, `the quick start's output:\n${output}`);
    assert.equal(await exited, 0, output);
    const [, orderId] = verified.exec(output)!;
    // The order the receiver heard about is the one the guide created and read as paid.
    assert.match(output, new RegExp(`${orderId} pending`));
    assert.match(output, /^[A-Z0-9]{6,} paid: Ada Runner$/m);
    assert.doesNotMatch(output, /rejected|undefined|error/i);
    // `cli env` named this service, and the guide reached nothing on a default port.
    assert.ok(output.includes(`client ${demoClientId} on ${urls.api}, checkout on ${urls.site}`), output);
    assert.doesNotMatch(output, /:400[0-2]\b/);
    assert.match(output, /^tt_\w+ 10 km: 25000 \+ fee \d+ = \d+ UGX$/m);
    assert.match(output, new RegExp(`^open ${urls.site}/checkout/cs_\\w+$`, 'm'));
    // The one command added the reader's origin to both lists of the demo client.
    const client = await findApiClient(h.service.ctx.database.db, demoClientId);
    assert.ok(client?.allowedDomains.includes(partnerOrigin), JSON.stringify(client?.allowedDomains));
    assert.ok(client?.returnUrlDomains.includes(partnerOrigin), JSON.stringify(client?.returnUrlDomains));
  },
);
