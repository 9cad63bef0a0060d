// Running the real service as a child process (start-up, shutdown, crash tests).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
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

/** Starts src/main.ts with the given environment and waits until it logs "listening". */
export async function startMain(env: Record<string, string>, timeoutMs = 30_000): Promise<Child> {
  const [api, site, app] = [await freePort(), await freePort(), await freePort()];
  const urls = {
    api: `http://127.0.0.1:${api}`,
    site: `http://127.0.0.1:${site}`,
    app: `http://127.0.0.1:${app}`,
  };
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      API_URL: urls.api,
      SITE_URL: urls.site,
      APP_URL: urls.app,
      LOG_LEVEL: 'info',
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
