// Running the real service as a child process (start-up, shutdown, crash tests).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isAlive } from '../../src/platform/index.ts';

export const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

// Ports handed to children are taken below Linux's ephemeral range (32768-60999): a port there,
// free when checked, can be given to another test's listen(0) or outgoing connection before the
// child binds it.
const FIRST_PORT = 20_000;
const PORTS = 12_000;

// Test files run side by side, and a port checked free in one can be picked by another before
// either binds it: a claim file per port, made exclusively, keeps two test processes from handing
// out the same port. Claims go with the process that made them (or with its death).
const CLAIMS = join(tmpdir(), 'partner-ticketing-test-ports');
const claims: string[] = [];

function claim(port: number): boolean {
  const file = join(CLAIMS, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    let owner: number;
    try {
      owner = Number(readFileSync(file, 'utf8'));
    } catch (reading) {
      // Its owner has just exited and taken it away.
      if ((reading as NodeJS.ErrnoException).code === 'ENOENT') return claim(port);
      throw reading;
    }
    // An owner killed before its exit handler ran leaves its claims behind.
    if (!owner || isAlive(owner)) return false;
    rmSync(file, { force: true });
    return claim(port);
  }
  if (claims.length === 0) process.once('exit', () => claims.forEach((c) => rmSync(c, { force: true })));
  claims.push(file);
  return true;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port free now, outside the ephemeral range, for a child process to listen on; no other test
 * process is handed it while this one lives.
 */
export async function freePort(): Promise<number> {
  mkdirSync(CLAIMS, { recursive: true });
  for (let tries = 0; tries < 50; tries++) {
    const port = FIRST_PORT + Math.floor(Math.random() * PORTS);
    if (claim(port) && (await canListen(port))) return port;
  }
  throw new Error('no free port found');
}

/**
 * The test processes' drizzle-orm resolve hook (resolve-drizzle.ts), for the Node programs the tests
 * start: it resolves every module as Node would, only sooner.
 */
const CHILD_NODE_OPTIONS = `--import=${new URL('./resolve-drizzle.ts', import.meta.url).href}`;

/**
 * What `npm test` gives V8: the embedded database's WebAssembly stays on its baseline compiler
 * (docs/decisions/tests-on-baseline-wasm.md). Node refuses V8 flags in NODE_OPTIONS, so each Node
 * program a test starts gets it as an argument.
 */
export const CHILD_NODE_FLAGS = ['--liftoff-only'];

/**
 * The environment of a program run as an operator runs it: PATH and HOME only, plus Node's compile
 * cache when the tests have one and the resolve hook (neither changes behaviour; both spare each
 * child seconds of loading the service's modules).
 */
export function operatorEnv(): Record<string, string> {
  const cache = process.env.NODE_COMPILE_CACHE;
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_OPTIONS: CHILD_NODE_OPTIONS,
    ...(cache && { NODE_COMPILE_CACHE: cache }),
  };
}

export interface Child {
  process: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  urls: { api: string; site: string; app: string };
}

/**
 * PostgreSQL connections of each service a test starts: two test files run at once, some with two
 * service processes, against one server with max_connections 100, so fewer than the production
 * default (2 + 34). Transactions still run concurrently (the oversell races use 12 at once).
 */
export const TEST_DATABASE_CONNECTIONS = {
  DATABASE_READ_CONNECTIONS: '2',
  DATABASE_TRANSACTION_CONNECTIONS: '12',
};

/**
 * Starts src/main.ts (or the node arguments given, e.g. a built dist/src/main.js) with the given
 * environment and waits until it logs "listening".
 */
export async function startMain(
  env: Record<string, string>,
  timeoutMs = 30_000,
  args: string[] = [MAIN],
): Promise<Child> {
  for (let tries = 1; ; tries++) {
    try {
      return await startMainOnce(env, timeoutMs, args);
    } catch (error) {
      // Another process took a chosen port between the check and the child's listen.
      if (tries >= 3 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
}

async function startMainOnce(env: Record<string, string>, timeoutMs: number, args: string[]): Promise<Child> {
  const [api, site, app] = [await freePort(), await freePort(), await freePort()];
  const urls = {
    api: `http://127.0.0.1:${api}`,
    site: `http://127.0.0.1:${site}`,
    app: `http://127.0.0.1:${app}`,
  };
  const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, ...args], {
    env: {
      ...process.env,
      API_URL: urls.api,
      SITE_URL: urls.site,
      APP_URL: urls.app,
      LOG_LEVEL: 'info',
      NODE_OPTIONS: CHILD_NODE_OPTIONS,
      ...TEST_DATABASE_CONNECTIONS,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  while (!out.includes('"msg":"listening"')) {
    if (child.exitCode !== null) throw new Error(`service exited early:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { process: child, output: () => out, exited, urls };
}
