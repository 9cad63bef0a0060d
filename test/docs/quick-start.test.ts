// The quick start, executed: its sh blocks in order in one bash, against a listening service
// seeded with the demo organization, in a folder holding .data/demo.json as `npm start` writes
// it. Passes when the guide's receiver prints a verified order.paid for a paid order. Blocks
// marked "quick-start-test: skip" (starting the service, stopping the receiver) are the test's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { seedDemo } from '../../src/demo/seed-demo.ts';
import type { Harness } from '../helpers/harness.ts';
import { freePort } from '../helpers/process.ts';
import { codeBlocks, GUIDES, readGuide, startDocsHarness } from './docs-helpers.ts';

const WAIT_MS = 120_000;

let h: Harness;
let api: string;
let folder: string;
let child: ChildProcess | undefined;

before(async () => {
  ({ h, api } = await startDocsHarness());
  const demo = await seedDemo(h.service.ctx, null);
  assert.ok(demo, 'the demo organization was seeded');
  folder = mkdtempSync(join(tmpdir(), 'quick-start-'));
  mkdirSync(join(folder, '.data'));
  writeFileSync(join(folder, '.data', 'demo.json'), JSON.stringify(demo, null, 2));
  // The guide runs from the repository root: docs/ is there.
  symlinkSync(dirname(GUIDES), join(folder, 'docs'));
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
  if (folder) rmSync(folder, { recursive: true, force: true });
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
    const script = ['set -eo pipefail', ...run.map((b) => b.text)].join('\n');
    const receiverPort = await freePort();
    let output = '';
    child = spawn('bash', ['-c', script], {
      cwd: folder,
      detached: true,
      env: {
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        HOME: process.env.HOME ?? folder,
        API_URL: api,
        RECEIVER_PORT: String(receiverPort),
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
  },
);
