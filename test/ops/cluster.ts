// Several instances of the real service (child processes of src/main.ts) on one new PostgreSQL
// database and one Redis, sharing one provider simulator, each on fixed ports so that a restarted
// instance comes back where the proxy expects it.
import assert from 'node:assert/strict';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { freshPostgresDatabase, TEST_ADMIN_KEY, testRedisKeyPrefix } from '../helpers/harness.ts';
import { freePort, startMain, type Child } from '../helpers/process.ts';

export interface Urls {
  api: string;
  site: string;
  app: string;
}

export interface Instance {
  urls: Urls;
  child: Child;
}

async function freeUrls(): Promise<Urls> {
  const [api, site, app] = [await freePort(), await freePort(), await freePort()];
  return {
    api: `http://127.0.0.1:${api}`,
    site: `http://127.0.0.1:${site}`,
    app: `http://127.0.0.1:${app}`,
  };
}

export class Cluster {
  readonly instances: Instance[] = [];
  /** the instances' database, for a test's own checks */
  readonly databaseUrl: string;
  readonly simulator: Simulator;
  private readonly env: Record<string, string>;
  private readonly drop: () => Promise<void>;

  private constructor(options: {
    databaseUrl: string;
    env: Record<string, string>;
    simulator: Simulator;
    drop: () => Promise<void>;
  }) {
    this.databaseUrl = options.databaseUrl;
    this.env = options.env;
    this.simulator = options.simulator;
    this.drop = options.drop;
  }

  /**
   * `count` instances on a new database of `databaseUrl` and on `redisUrl`, all running jobs, with
   * payments (the simulator, a hundred times faster) and webhooks to loopback allowed.
   */
  static async start(options: {
    count: number;
    databaseUrl: string;
    redisUrl: string;
    env?: Record<string, string>;
  }): Promise<Cluster> {
    const database = await freshPostgresDatabase(options.databaseUrl);
    const simulator = await startSimulator({ timeScale: 0.01 });
    const env = {
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      REDIS_URL: options.redisUrl,
      // One deployment: the instances share their counters with each other, and with no other test.
      REDIS_KEY_PREFIX: testRedisKeyPrefix(),
      ADMIN_API_KEY: TEST_ADMIN_KEY,
      SEED_DEMO: 'false',
      PAYMENT_PROVIDER: 'simulator',
      SIMULATOR_URL: simulator.url,
      PAYMENT_TIME_SCALE: '0.01',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIME_SCALE: '0.01',
      ...options.env,
    };
    const cluster = new Cluster({ databaseUrl: database.url, env, simulator, drop: database.drop });
    try {
      // One first, so that the migrations run once; the others start together on a current schema.
      cluster.instances.push(await cluster.launch(await freeUrls()));
      const rest = await Promise.all(
        Array.from({ length: options.count - 1 }, async () => cluster.launch(await freeUrls())),
      );
      cluster.instances.push(...rest);
    } catch (error) {
      await cluster.close();
      throw error;
    }
    return cluster;
  }

  private async launch(urls: Urls): Promise<Instance> {
    // The URLs given here override the ports startMain would choose.
    // A start can take long on a machine busy with other tests; two minutes before giving up.
    const child = await startMain(
      { ...this.env, API_URL: urls.api, SITE_URL: urls.site, APP_URL: urls.app },
      120_000,
    );
    return { urls, child };
  }

  /** SIGTERM to instance `i`; resolves with its exit code once it has exited. */
  async stop(i: number): Promise<number | null> {
    const { child } = this.instances[i]!;
    child.process.kill('SIGTERM');
    return child.exited;
  }

  /** Starts instance `i` again on its ports; resolves once it listens. */
  async start(i: number): Promise<void> {
    this.instances[i] = await this.launch(this.instances[i]!.urls);
  }

  /** Every instance's output so far, for a failure message. */
  output(): string {
    return this.instances.map((instance, i) => `--- instance ${i}\n${instance.child.output()}`).join('\n');
  }

  async close(): Promise<void> {
    for (const { child } of this.instances) {
      if (child.process.exitCode === null && child.process.signalCode === null) {
        child.process.kill('SIGKILL');
        await child.exited;
      }
    }
    await this.simulator.close();
    await this.drop();
  }
}

export interface Answer {
  status: number;
  headers: Headers;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** tries it took, 1 when the first answered */
  tries: number;
}

/** Tallies of what clients met on the way to their answers. */
export interface Retries {
  networkErrors: number;
  byStatus: Record<number, number>;
  /**
   * Retried requests answered as a replay (Idempotent-Replayed): the instance had done the work
   * of an earlier try whose answer the client never got.
   */
  replays: number;
  /** the first few network errors, for a failure message */
  errors: string[];
}

export function newRetries(): Retries {
  return { networkErrors: 0, byStatus: {}, replays: 0, errors: [] };
}

const RETRYABLE_STATUSES = new Set([502, 503]);

/**
 * A request as a careful partner's server sends it: network errors, 502, 503 and 409
 * idempotency_key_in_use (the same key still running elsewhere) are tried again, with the same
 * Idempotency-Key, after Retry-After (capped at a second) or a short back-off.
 */
export async function call(
  base: string,
  request: {
    method?: string;
    path: string;
    body?: unknown;
    headers?: Record<string, string>;
    form?: Record<string, string>;
  },
  retries: Retries = newRetries(),
  maxTries = 20,
): Promise<Answer> {
  const headers: Record<string, string> = { ...request.headers };
  let payload: string | undefined;
  if (request.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    payload = new URLSearchParams(request.form).toString();
  } else if (request.body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(request.body);
  }
  for (let tries = 1; ; tries++) {
    let wait = Math.min(50 * tries, 500);
    try {
      const res = await fetch(`${base}${request.path}`, {
        method: request.method ?? 'GET',
        headers,
        ...(payload !== undefined && { body: payload }),
      });
      const text = await res.text();
      const json = text ? JSON.parse(text) : null;
      const inUse = res.status === 409 && json?.error_code === 'idempotency_key_in_use';
      if ((!RETRYABLE_STATUSES.has(res.status) && !inUse) || tries >= maxTries) {
        if (tries > 1 && res.headers.get('idempotent-replayed') === 'true') retries.replays++;
        return { status: res.status, headers: res.headers, json, tries };
      }
      retries.byStatus[res.status] = (retries.byStatus[res.status] ?? 0) + 1;
      const after = Number(res.headers.get('retry-after'));
      if (after > 0) wait = Math.min(after * 1000, 1000);
    } catch (error) {
      if (tries >= maxTries) throw error;
      retries.networkErrors++;
      if (retries.errors.length < 5) retries.errors.push(String((error as Error).cause ?? error));
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

export const adminKey = { authorization: `Bearer ${TEST_ADMIN_KEY}` };

/** Asserts the status and returns the envelope's data. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function dataOf(answer: Answer, status: number): any {
  assert.equal(answer.status, status, JSON.stringify(answer.json));
  return answer.json.data;
}

/** An access token for a client, asked of `base`. */
export async function tokenFor(base: string, client: { client_id: string; client_secret: string }) {
  const answer = await call(base, {
    method: 'POST',
    path: '/v1/oauth/token',
    form: { grant_type: 'client_credentials', ...client },
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  return answer.json.access_token as string;
}
