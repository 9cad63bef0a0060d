// Child processes: the service (from dist, NODE_ENV=production) and the bare node:http server.
// Both are stopped with SIGTERM, then SIGKILL if they have not exited within a bound.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { BARE_SERVER, ROOT, SERVICE_ENTRY } from './paths.ts';

/** A free loopback TCP port (bound to 0, read, released). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** Rate limits raised for the bench (env names from src/config.ts); printed with the results. */
export const BENCH_RATE_LIMITS: Record<string, string> = {
  RATE_LIMIT_BEARER_RATE: '1000000',
  RATE_LIMIT_BEARER_BURST: '1000000',
  RATE_LIMIT_TOKEN_RATE: '1000',
  RATE_LIMIT_TOKEN_BURST: '100000',
};

export interface RunningService {
  apiUrl: string;
  pid: number;
  env: Record<string, string>;
  stop(): Promise<void>;
}

function tail(text: string, lines = 20): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}

/** Every child started here and not yet stopped, so that an interrupted bench stops them all. */
const running = new Set<ChildProcess>();

export async function stopAllChildren(): Promise<void> {
  await Promise.all([...running].map((child) => stopChild(child)));
}

export async function stopChild(child: ChildProcess, graceMs = 15_000): Promise<void> {
  running.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Starts `node dist/src/main.js` (or another build's entry) and waits until GET /readyz answers 200 (at most 60 s). */
export async function startService(
  databaseEnv: Record<string, string>,
  log: (line: string) => void,
  entry: string = SERVICE_ENTRY,
): Promise<RunningService> {
  const [apiPort, sitePort, appPort] = [await freePort(), await freePort(), await freePort()];
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    ADMIN_API_KEY: randomBytes(30).toString('base64url').slice(0, 40),
    SEED_DEMO: 'false',
    // BENCH_LOG_LEVEL: diagnostic only (e.g. to see what production's default "info" costs)
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'warn',
    API_URL: `http://127.0.0.1:${apiPort}`,
    SITE_URL: `http://127.0.0.1:${sitePort}`,
    APP_URL: `http://127.0.0.1:${appPort}`,
    ...BENCH_RATE_LIMITS,
    // The simulator needs no provider credentials; payments are not on the measured paths.
    PAYMENT_PROVIDER: 'simulator',
    ...databaseEnv,
  };
  const inherited = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'REDIS_URL', 'TRUST_PROXY', 'NODE_OPTIONS']) {
    delete inherited[name];
  }
  // For profiling only, e.g. BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, entry], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > 64_000) output = output.slice(-32_000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', (chunk: Buffer) => {
    collect(chunk);
    // warn-level lines and crashes are worth seeing while the bench runs
    for (const line of chunk.toString('utf8').trimEnd().split('\n')) log(`  [service] ${line}`);
  });
  const apiUrl = env.API_URL!;
  const deadline = Date.now() + 60_000;
  while (true) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `the service exited during start (${child.exitCode ?? child.signalCode}):\n${tail(output)}`,
      );
    }
    try {
      const res = await fetch(`${apiUrl}/readyz`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`the service was not ready within 60 s:\n${tail(output)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    apiUrl,
    pid: child.pid!,
    env,
    stop: () => stopChild(child),
  };
}

export interface RunningBareServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts bench/bare-server.ts serving `body` (parsed once, stringified per request). */
export async function startBareServer(body: string, contentType: string): Promise<RunningBareServer> {
  const child = fork(BARE_SERVER, [], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [],
  });
  running.add(child);
  const port = await new Promise<number>((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error('the bare server did not start within 10 s')), 10_000);
    child.once('exit', (code) => reject(new Error(`the bare server exited during start (${code})`)));
    child.once('message', (message: { port?: number }) => {
      clearTimeout(timer);
      if (typeof message.port === 'number') resolvePort(message.port);
      else reject(new Error('the bare server sent no port'));
    });
    child.send({ body, contentType });
  });
  child.removeAllListeners('exit');
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () => stopChild(child, 5000),
  };
}
