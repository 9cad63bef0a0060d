// Test harness: a whole service per test file on a fresh database (in-memory PGlite, or a new
// PostgreSQL database when TEST_DATABASE_URL is set), a movable clock, and factories so that each
// test makes its own organization and never depends on another test.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { loadConfig, type Config } from '../../src/config.ts';
import { OffsetClock } from '../../src/platform/clock.ts';
import { openDatabase } from '../../src/platform/db.ts';
import { migrate } from '../../src/platform/migrate.ts';
import { migratedPostgresTemplate, migratedTemplate, reusedEmbeddedDatabase } from './db-templates.ts';
import { createService, type CreateServiceOptions, type Service } from '../../src/service.ts';
import { createOrganization } from '../../src/organizations/organizations.ts';
import { insertApiClient } from '../../src/auth/clients.ts';
import { ALL_SCOPES, type Scope } from '../../src/auth/scopes.ts';
import { insertEvent, type EventInput, type TicketTypeInput } from '../../src/events/events.ts';
import type { FeeSchedule } from '../../src/organizations/organizations.schema.ts';
import type { Resolver } from '../../src/webhooks/send-webhook.ts';
import { TEST_DATABASE_CONNECTIONS } from './process.ts';

export const TEST_ADMIN_KEY = 'adm_test_key_0123456789abcdefghijklmnop';
const DAY = 24 * 3600 * 1000;

export interface Harness {
  service: Service;
  clock: OffsetClock;
  config: Config;
  close(): Promise<void>;
}

/**
 * A REDIS_KEY_PREFIX of its own: test files run side by side on one Redis, so each deployment a
 * test starts counts on its own.
 */
export function testRedisKeyPrefix(): string {
  return `test-${randomBytes(6).toString('hex')}:`;
}

/** A new database on the server at `baseUrl`: empty, or with every migration applied. */
export async function freshPostgresDatabase(
  baseUrl: string,
  { migrated = false } = {},
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const template = migrated ? await migratedPostgresTemplate(baseUrl) : null;
  // Ended whatever happens: an open connection would keep a failed test file's process alive.
  const onServer = async (statement: string) => {
    const admin = postgres(baseUrl, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(statement);
    } finally {
      await admin.end();
    }
  };
  await onServer(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** A webhook resolver that knows no name (createService's webhookResolver), so that no test asks real DNS. */
export const resolveNoNames: Resolver = async (hostname) => {
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (tests resolve no names)`), {
    code: 'ENOTFOUND',
  });
};

export interface HarnessOptions {
  env?: Record<string, string>;
  /** createService's options other than the clock (a logger, a span exporter) */
  service?: Omit<CreateServiceOptions, 'clock'>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const base = process.env.TEST_DATABASE_URL;
  const pg = base ? await freshPostgresDatabase(base, { migrated: true }) : null;
  const config = loadConfig(
    {
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ADMIN_API_KEY: TEST_ADMIN_KEY,
      DATA_DIR: 'memory://',
      SEED_DEMO: 'false',
      PAYMENT_PROVIDER: 'simulator',
      // Prompt window, polling and simulator delays a hundred times faster.
      PAYMENT_TIME_SCALE: '0.01',
      // The in-process simulator answers in milliseconds, but on a busy machine (two test files and
      // their browsers on two CPUs) a call can take seconds; no test waits for this to run out.
      PAYMENT_HTTP_TIMEOUT_MS: '5000',
      ...(pg ? { DATABASE_URL: pg.url, ...TEST_DATABASE_CONNECTIONS } : {}),
      ...(process.env.TEST_REDIS_URL
        ? { REDIS_URL: process.env.TEST_REDIS_URL, REDIS_KEY_PREFIX: testRedisKeyPrefix() }
        : {}),
      ...options.env,
    },
    { paymentMethods: options.service?.paymentMethods?.map((m) => m.settings) ?? [] },
  );
  // A production service on PostgreSQL only checks its migrations: apply them first, as a release does.
  if (pg && config.env === 'production') await migrateDatabase(pg.url);
  const clock = new OffsetClock();
  const embedded = !config.databaseUrl && config.dataDir.startsWith('memory://');
  // Metrics and tracing wrap the database as it opens: such a service opens its own.
  const reused = embedded && !config.metrics && !config.tracing.endpoint && !options.service?.spanExporter;
  const service = await createService(config, {
    ...options.service,
    clock,
    ...(reused
      ? { database: await reusedEmbeddedDatabase() }
      : embedded && { embeddedData: await migratedTemplate() }),
  });
  return {
    service,
    clock,
    config,
    async close() {
      await service.close();
      await pg?.drop();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Factories

export interface TestPartner {
  organizationId: string;
  clientId: string;
  clientSecret: string;
  publishableKey: string;
}

export async function makePartner(
  h: Harness,
  options: {
    scopes?: Scope[];
    allowedDomains?: string[];
    returnUrlDomains?: string[];
    paymentsEnabled?: boolean;
    fees?: FeeSchedule;
    /** what the checkout's buttons call the partner's site */
    displayName?: string;
  } = {},
): Promise<TestPartner> {
  const db = h.service.ctx.database.db;
  const org = await createOrganization(db, {
    name: `Org ${randomBytes(3).toString('hex')}`,
    paymentsEnabled: options.paymentsEnabled ?? true,
    supportEmail: 'help@example.org',
    ...(options.fees && { fees: options.fees }),
  });
  const { client, clientSecret } = await insertApiClient(db, {
    organizationId: org.id,
    name: 'Test client',
    scopes: options.scopes ?? [...ALL_SCOPES],
    allowedDomains: options.allowedDomains ?? ['https://shop.example.org'],
    returnUrlDomains: options.returnUrlDomains ?? ['https://shop.example.org'],
    displayName: options.displayName ?? null,
  });
  return {
    organizationId: org.id,
    clientId: client.id,
    clientSecret,
    publishableKey: client.publishableKey,
  };
}

/** An open public event, registration open now, with one paid and one free ticket type by default. */
export function eventInput(h: Harness, overrides: Partial<EventInput> = {}): EventInput {
  const now = h.clock.now().getTime();
  const tickets: TicketTypeInput[] = [
    { name: '10 km', price_minor: 30000, capacity: 100, distance_km: 10 },
    { name: '5 km', price_minor: 0, capacity: 50, distance_km: 5 },
  ];
  return {
    name: 'Test Run',
    status: 'open',
    visibility: 'public',
    starts_at: new Date(now + 30 * DAY).toISOString(),
    ends_at: new Date(now + 30 * DAY + 6 * 3600_000).toISOString(),
    timezone: 'Africa/Kampala',
    currency: 'UGX',
    reg_opens_at: new Date(now - DAY).toISOString(),
    reg_closes_at: new Date(now + 29 * DAY).toISOString(),
    ticket_types: tickets,
    ...overrides,
  };
}

export async function makeEvent(h: Harness, partner: TestPartner, overrides: Partial<EventInput> = {}) {
  return insertEvent(h.service.ctx.database.db, partner.organizationId, eventInput(h, overrides));
}

export async function getToken(h: Harness, partner: TestPartner, scope?: string): Promise<string> {
  const res = await h.service.api.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: partner.clientId,
      client_secret: partner.clientSecret,
      ...(scope !== undefined && { scope }),
    }).toString(),
    remoteAddress: `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
  });
  if (res.statusCode !== 200) throw new Error(`token request failed: ${res.statusCode} ${res.body}`);
  return res.json().access_token as string;
}

export function bearer(token: string) {
  return { authorization: `Bearer ${token}` };
}

async function migrateDatabase(url: string): Promise<void> {
  const database = await openDatabase({ url, connections: { reads: 1, transactions: 1 } });
  try {
    await migrate(database);
  } finally {
    await database.close();
  }
}
