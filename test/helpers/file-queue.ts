// `npm test` runs the test files in a few long-lived worker processes instead of one process per
// file: each file's process spent about a second importing the harness and warming the service's
// code before its first test (docs/decisions/tests-in-worker-processes.md). The global set-up
// writes the run's files to a queue; each worker takes the next file nobody has taken and runs it
// as one suite, so its top-level hooks stay its own.
import { globSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { after, describe } from 'node:test';
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

const QUEUE = 'TEST_FILE_QUEUE';
const LEAK_GRACE_MS = 30_000;

/** The global set-up (`--test-global-setup`): the queue of every test file, in a new folder. */
export function globalSetup(): void {
  const files = globSync(process.env.TEST_FILES ?? 'test/**/*.test.ts').map((file) => resolve(file));
  const dir = mkdtempSync(join(tmpdir(), 'partner-ticketing-queue-'));
  writeFileSync(join(dir, 'files.json'), JSON.stringify(files.sort()));
  process.env[QUEUE] = dir;
}

export function globalTeardown(): void {
  rmSync(process.env[QUEUE]!, { recursive: true, force: true });
}

/** Runs queued files one after another until none is left. */
export async function work(): Promise<void> {
  const dir = process.env[QUEUE];
  if (!dir) throw new Error(`${QUEUE} is not set: run the workers through npm test`);
  const files: string[] = JSON.parse(readFileSync(join(dir, 'files.json'), 'utf8'));
  for (let i = 0; i < files.length; i++) {
    // The first worker to create a file's claim runs it.
    try {
      writeFileSync(join(dir, String(i)), String(process.pid), { flag: 'wx' });
    } catch (error) {
      // Taken by another worker; anything else (the queue gone) must not pass for an empty queue.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    const file = files[i]!;
    // Loaded synchronously inside the suite: Node's test runner finds the suite a top-level hook
    // or test belongs to by the code running it, which a dynamic import's evaluation leaves.
    // describe() returns at once: the suite's last after hook tells when the file is done, even
    // when loading it failed.
    await new Promise<void>((done) =>
      describe(relative(process.cwd(), file), () => {
        try {
          load(file);
        } finally {
          after(() => done());
        }
      }),
    );
  }
  // A file that leaves a server, a child process or a timer behind keeps this worker, and so the
  // whole run, from ending: after the last file, that fails the worker instead of waiting forever.
  setTimeout(() => {
    const open = process.getActiveResourcesInfo().join(', ');
    process.stderr.write(`test worker: still running ${LEAK_GRACE_MS} ms after its last file: ${open}\n`);
    process.exit(1);
  }, LEAK_GRACE_MS).unref();
}
