// Child processes: the service (from dist, NODE_ENV=production), the bare node:http server and the
// payment provider simulator (from dist, for the flash sale). All are stopped with SIGTERM, then
// SIGKILL if they have not exited within a bound; the service can also be killed outright.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { BARE_SERVER, DIST_SRC, ROOT, SERVICE_ENTRY } from './paths.ts';

/**
 * `count` distinct free loopback TCP ports: all are bound to 0 at once, read, then released. A
 * released port can still be taken (by an outgoing connection's ephemeral port) before the child
 * binds it, so starting a service retries on EADDRINUSE.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  const ports = await Promise.all(
    servers.map(
      (server) =>
        new Promise<number>((resolvePort, reject) => {
          server.on('error', reject);
          server.listen(0, '127.0.0.1', () => {
            const address = server.address();
            resolvePort(typeof address === 'object' && address ? address.port : 0);
          });
        }),
    ),
  );
  await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
  return ports;
}

export async function freePort(): Promise<number> {
  return (await freePorts(1))[0]!;
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
  /** SIGKILL, no grace: what a crash looks like to clients and to the database */
  kill(): Promise<void>;
  /** the last 32 to 64 KB the service wrote (stdout and stderr: its JSON log lines) */
  output(): string;
}

function tail(text: string, lines = 20): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}

/** Every child started here and not yet stopped, so that an interrupted bench stops them all. */
const running = new Set<ChildProcess>();

export async function stopAllChildren(): Promise<void> {
  await Promise.all([...running].map((child) => stopChild(child)));
}

/** SIGKILL and wait for the exit. */
export async function killChild(child: ChildProcess): Promise<void> {
  running.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGKILL');
  await exited;
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

/**
 * Starts `node dist/src/main.js` (or another build's entry) and waits until GET /readyz answers 200
 * (at most 60 s). `overrides` go last into the environment: e.g. a previous start's `env`, to
 * restart on the same ports with the same admin key.
 */
export async function startService(
  databaseEnv: Record<string, string>,
  log: (line: string) => void,
  entry: string = SERVICE_ENTRY,
  overrides: Record<string, string> = {},
): Promise<RunningService> {
  // Fresh ports can be lost to another socket between picking and binding: pick again. A restart
  // on pinned ports (overrides naming API_URL) is not retried elsewhere.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServiceOnce(databaseEnv, log, entry, overrides);
    } catch (error) {
      const portTaken = error instanceof Error && error.message.includes('EADDRINUSE');
      if (!portTaken || overrides.API_URL || attempt === 3) throw error;
      log(`  the service's port was taken before it could bind; starting again on other ports`);
    }
  }
}

async function startServiceOnce(
  databaseEnv: Record<string, string>,
  log: (line: string) => void,
  entry: string,
  overrides: Record<string, string>,
): Promise<RunningService> {
  const [apiPort, sitePort, appPort] = await freePorts(3);
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
    ...overrides,
  };
  const inherited = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'REDIS_URL', 'TRUST_PROXY', 'NODE_OPTIONS']) {
    delete inherited[name];
  }
  // For profiling only, e.g. BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
  const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, entry], {
    // the checkout the entry was built in (<root>/dist/src/main.js)
    cwd: resolve(entry, '../../..'),
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
    kill: () => killChild(child),
    output: () => output,
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

export interface SimulatorLogLine {
  /** when the bench read the line */
  receivedAt: number;
  msg?: string;
  [field: string]: unknown;
}

export interface RunningSimulator {
  /** http://127.0.0.1:<port>: MTN under /mtn, Airtel under /airtel */
  url: string;
  pid: number;
  /** every JSON log line the simulator wrote so far (at LOG_LEVEL=info: one per settled payment) */
  logLines(): SimulatorLogLine[];
  stop(): Promise<void>;
}

/**
 * Starts the provider simulator as it ships (`node dist/src/payments/simulator/main.js`, what
 * `npm run simulator` runs) on a free loopback port, as its own process so that it outlives a
 * killed service, and waits until it answers GET / (at most 30 s).
 */
export async function startSimulatorProcess(options: {
  timeScale: number;
  airtelCallbackUrl?: string;
  log: (line: string) => void;
}): Promise<RunningSimulator> {
  const port = await freePort();
  const inherited = { ...process.env };
  delete inherited.NODE_OPTIONS;
  const child = spawn(process.execPath, [join(DIST_SRC, 'payments', 'simulator', 'main.js')], {
    cwd: ROOT,
    env: {
      ...inherited,
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      SIMULATOR_PORT: String(port),
      SIMULATOR_TIME_SCALE: String(options.timeScale),
      SIMULATOR_AIRTEL_CALLBACK_URL: options.airtelCallbackUrl ?? '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const lines: SimulatorLogLine[] = [];
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const parts = text.split('\n');
    partial = parts.pop()!;
    const receivedAt = Date.now();
    for (const line of parts) {
      if (!line.startsWith('{')) continue; // the banner
      try {
        lines.push({ ...(JSON.parse(line) as Record<string, unknown>), receivedAt });
      } catch {
        // not a log line
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').trimEnd().split('\n')) options.log(`  [simulator] ${line}`);
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (true) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the simulator exited during start (${child.exitCode ?? child.signalCode})`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stopChild(child, 5000);
      throw new Error('the simulator was not ready within 30 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, pid: child.pid!, logLines: () => lines, stop: () => stopChild(child, 5000) };
}
