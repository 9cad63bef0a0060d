// The PGlite directory's lock: a running service's is never taken over, a db command's is waited
// for, and a dead process's is taken over.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATA_DIR_LOCK_FILE, DataDirBusy, lockDataDir } from '../../src/platform/data-dir-lock.ts';

const dirs: string[] = [];
const children: ChildProcess[] = [];
after(() => {
  for (const child of children) child.kill();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dirHeldBy(pid: number | undefined, holder: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'data-dir-lock-'));
  dirs.push(dir);
  if (pid !== undefined) writeFileSync(join(dir, DATA_DIR_LOCK_FILE), `${pid} ${holder}`);
  return dir;
}

/** A live process other than this one. */
function liveProcess(): number {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  children.push(child);
  return child.pid!;
}

const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid;

test('a free directory is locked with this pid and the holder, and released', async () => {
  const dir = dirHeldBy(undefined, '');
  const release = await lockDataDir(dir, 'service', 0);
  assert.equal(readFileSync(join(dir, DATA_DIR_LOCK_FILE), 'utf8'), `${process.pid} service`);
  release();
  assert.equal(existsSync(join(dir, DATA_DIR_LOCK_FILE)), false);
});

test("a live service's lock is refused at once, to a db command and to a second service", async () => {
  const pid = liveProcess();
  const dir = dirHeldBy(pid, 'service');
  for (const holder of ['cli', 'service'] as const) {
    const started = Date.now();
    await assert.rejects(lockDataDir(dir, holder, 60_000), (error: unknown) => {
      assert.ok(error instanceof DataDirBusy);
      assert.equal(error.pid, pid);
      assert.match(error.message, new RegExp(`is open in the service \\(process ${pid}\\): stop it first`));
      return true;
    });
    assert.ok(Date.now() - started < 30_000, 'not waited for');
  }
  assert.equal(readFileSync(join(dir, DATA_DIR_LOCK_FILE), 'utf8'), `${pid} service`, 'left as it was');
});

test("a live db command's lock is waited for, then reported", async () => {
  const pid = liveProcess();
  const dir = dirHeldBy(pid, 'cli');
  await assert.rejects(
    lockDataDir(dir, 'cli', 300),
    /is held by a db command \(process \d+\); is it stuck\?/,
  );
  // Released while waited for: taken.
  setTimeout(() => rmSync(join(dir, DATA_DIR_LOCK_FILE)), 200);
  const release = await lockDataDir(dir, 'cli', 30_000);
  assert.equal(readFileSync(join(dir, DATA_DIR_LOCK_FILE), 'utf8'), `${process.pid} cli`);
  release();
});

test('a lock left by a dead process, or by this pid before a restart, is taken over', async () => {
  for (const pid of [deadPid(), process.pid]) {
    const dir = dirHeldBy(pid, 'service');
    const release = await lockDataDir(dir, 'service', 0);
    assert.equal(readFileSync(join(dir, DATA_DIR_LOCK_FILE), 'utf8'), `${process.pid} service`);
    release();
  }
});
