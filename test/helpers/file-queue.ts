// `npm test` runs the test files in a few long-lived worker processes instead of one process per
// file: each file's process spent about a second importing the harness and warming the service's
// code before its first test (docs/decisions/tests-in-worker-processes.md). The global set-up
// writes the run's files to a queue; each worker takes the next file nobody has taken and runs it
// as one suite, so its top-level hooks stay its own.
import {
  existsSync,
  globSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe } from 'node:test';
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

const QUEUE = 'TEST_FILE_QUEUE';
const LEAK_GRACE_MS = 30_000;
// How long each file took in the runs before, by path: the queue starts with the longest, so that
// no worker is left running a long file alone at the end.
const TIMES = 'node_modules/.cache/ticketing-tests/file-times.json';

type Times = Record<string, number>;

function readTimes(file: string): Times {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Times;
  } catch {
    return {};
  }
}

/**
 * The global set-up (`--test-global-setup`): the queue of every test file, in a new folder; files
 * never timed first (they may be long), then the longest first.
 */
export function globalSetup(): void {
  const times = readTimes(TIMES);
  const files = globSync(process.env.TEST_FILES ?? 'test/**/*.test.ts')
    .sort()
    .sort((a, b) => (times[b] ?? Infinity) - (times[a] ?? Infinity));
  const dir = mkdtempSync(join(tmpdir(), 'partner-ticketing-queue-'));
  writeFileSync(join(dir, 'files.json'), JSON.stringify(files));
  process.env[QUEUE] = dir;
}

/** Keeps this run's times (each worker wrote its own) for the next run's order, and ends the queue. */
export function globalTeardown(): void {
  const dir = process.env[QUEUE]!;
  const times = readTimes(TIMES);
  for (const name of readdirSync(dir).filter((n) => n.startsWith('times-'))) {
    Object.assign(times, readTimes(join(dir, name)));
  }
  for (const file of Object.keys(times)) if (!existsSync(file)) delete times[file];
  mkdirSync(dirname(TIMES), { recursive: true });
  // Renamed whole: checkouts sharing node_modules may end their runs at the same time.
  writeFileSync(`${TIMES}.${process.pid}`, JSON.stringify(times, null, 1));
  renameSync(`${TIMES}.${process.pid}`, TIMES);
  rmSync(dir, { recursive: true, force: true });
}

/** Runs queued files one after another until none is left. */
export async function work(): Promise<void> {
  const dir = process.env[QUEUE];
  if (!dir) throw new Error(`${QUEUE} is not set: run the workers through npm test`);
  const files: string[] = JSON.parse(readFileSync(join(dir, 'files.json'), 'utf8'));
  const times: Times = {};
  // Imported here: the global set-up, in the runner's process, has no use for the database code.
  const closeKept = (await import('./db-templates.ts')).keepDatabasesForReuse();
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
    const started = performance.now();
    // Loaded synchronously inside the suite: Node's test runner finds the suite a top-level hook
    // or test belongs to by the code running it, which a dynamic import's evaluation leaves.
    // describe() returns at once: the suite's last after hook tells when the file is done, even
    // when loading it failed.
    await new Promise<void>((done) =>
      describe(file, () => {
        try {
          load(resolve(file));
        } finally {
          after(() => done());
        }
      }),
    );
    times[file] = Math.round(performance.now() - started);
  }
  writeFileSync(join(dir, `times-${process.pid}.json`), JSON.stringify(times));
  await closeKept();
  // A file that leaves a server, a child process or a timer behind keeps this worker, and so the
  // whole run, from ending: after the last file, that fails the worker instead of waiting forever.
  setTimeout(() => {
    const open = process.getActiveResourcesInfo().join(', ');
    process.stderr.write(`test worker: still running ${LEAK_GRACE_MS} ms after its last file: ${open}\n`);
    process.exit(1);
  }, LEAK_GRACE_MS).unref();
}
