// Environment -> typed configuration. Bad values fail at start with one line naming the variable.
import type { DatabaseConnections } from './platform/db.ts';
import type { HttpLimits } from './platform/client-errors.ts';

export interface RateLimitSetting {
  /** sustained requests per second */
  rate: number;
  /** bucket size: how many may arrive at once */
  burst: number;
}

export interface Config {
  env: 'development' | 'production' | 'test';
  apiUrl: URL;
  siteUrl: URL;
  appUrl: URL;
  /** PostgreSQL URL; absent means embedded PGlite under dataDir */
  databaseUrl: string | undefined;
  /** embedded database directory; 'memory://' keeps it in memory */
  dataDir: string;
  redisUrl: string | undefined;
  /** fixed admin key; when absent a generated one is kept (hashed) in the database */
  adminApiKey: string | undefined;
  logLevel: string;
  /** seed the demo organization on an empty database */
  seedDemo: boolean;
  tokenTtlSeconds: number;
  /** how long a pending order holds its tickets */
  holdMinutes: number;
  /** tickets one client IP may hold unpaid per event through the hosted checkout page */
  holdLimitTicketsPerIp: number;
  /** payment prompts the hosted checkout page may send one phone number in 10 minutes */
  promptLimitPerPhone: number;
  /** run background jobs (hold and session expiry, later payments and webhooks) in this process */
  runJobs: boolean;
  /** requests creating orders or checkout sessions worked on at once in this process; the rest queue */
  writeConcurrency: number;
  /** PostgreSQL connections of this process, by use */
  databaseConnections: DatabaseConnections;
  rateLimits: {
    tokenEndpoint: RateLimitSetting;
    bearer: RateLimitSetting;
    publishableKey: RateLimitSetting;
    sitePages: RateLimitSetting;
    /** provider callbacks, per client IP */
    callback: RateLimitSetting;
  };
  payments: PaymentsConfig;
  webhooks: WebhooksConfig;
  /** DEMO_WEBHOOK_URL: the demo organization gets a webhook endpoint for it when seeded */
  demoWebhookUrl: string | undefined;
  /** seconds granted for in-flight requests at shutdown */
  shutdownGraceSeconds: number;
  /** how long a client may take to send a header block and a body, and keep a connection idle */
  http: HttpLimits;
}

export interface PaymentsConfig {
  /** simulator: the built-in provider simulator, started in-process; live: the real APIs */
  provider: 'simulator' | 'live';
  /**
   * SIMULATOR_URL: a simulator already running there (`npm run simulator`) instead of one started
   * in-process, e.g. so that it outlives this process; without a trailing slash
   */
  simulatorUrl?: string;
  /** multiplies the prompt window and polling schedule, and the simulator's delays (tests: 0.01) */
  timeScale: number;
  /** simulator port (0 = any free port) */
  simulatorPort: number;
  /** deadline of each call to a provider */
  httpTimeoutMs: number;
  /** largest total one payment may ask of each provider, in minor units of UGX */
  maxAmount: { momo: number; airtel: number };
  mtn?: {
    baseUrl: string;
    subscriptionKey: string;
    apiUser: string;
    apiKey: string;
    targetEnvironment: string;
  };
  airtel?: { baseUrl: string; clientId: string; clientSecret: string };
}

export interface WebhooksConfig {
  /**
   * Development and tests only (refused in production): http URLs and receivers on loopback or
   * private addresses, e.g. http://localhost:3000/hooks.
   */
  allowPrivateUrls: boolean;
  /** multiplies the retry schedule and the outbox polling interval (tests: 0.0001) */
  timeScale: number;
  /** deadline of one delivery, response included; kept under the job lease (60 s) */
  timeoutMs: number;
}

export class ConfigError extends Error {}

function webhooksConfig(env: NodeJS.ProcessEnv, nodeEnv: string): WebhooksConfig {
  const allowPrivateUrls = flag(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', false);
  if (allowPrivateUrls && nodeEnv === 'production') {
    throw new ConfigError(
      'WEBHOOK_ALLOW_PRIVATE_URLS is for development and tests only, not NODE_ENV=production',
    );
  }
  const timeoutMs = positive(env, 'WEBHOOK_TIMEOUT_MS', 15_000);
  if (timeoutMs > 30_000)
    throw new ConfigError(`WEBHOOK_TIMEOUT_MS must be at most 30000, got "${timeoutMs}"`);
  return { allowPrivateUrls, timeScale: positive(env, 'WEBHOOK_TIME_SCALE', 1), timeoutMs };
}

function optionalUrl(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  try {
    const parsed = new URL(raw);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.toString();
  } catch {
    // reported below
  }
  throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new ConfigError(`${name} is required when PAYMENT_PROVIDER=live`);
  return value;
}

function paymentsConfig(env: NodeJS.ProcessEnv, nodeEnv: string): PaymentsConfig {
  const provider = env.PAYMENT_PROVIDER || (nodeEnv === 'production' ? 'live' : 'simulator');
  if (provider !== 'simulator' && provider !== 'live') {
    throw new ConfigError(`PAYMENT_PROVIDER must be simulator or live, got "${provider}"`);
  }
  const timeScale = positive(env, 'PAYMENT_TIME_SCALE', positive(env, 'SIMULATOR_TIME_SCALE', 1));
  const simulatorPort = env.SIMULATOR_PORT ? Number(env.SIMULATOR_PORT) : 0;
  if (!Number.isInteger(simulatorPort) || simulatorPort < 0 || simulatorPort > 65535) {
    throw new ConfigError(`SIMULATOR_PORT must be a port number, got "${env.SIMULATOR_PORT}"`);
  }
  const httpTimeoutMs = positive(env, 'PAYMENT_HTTP_TIMEOUT_MS', 15_000);
  // Both networks cap one Ugandan merchant payment at UGX 5,000,000 (docs/decisions.md).
  const maxAmount = {
    momo: wholeNumber(env, 'MOMO_MAX_AMOUNT', 5_000_000),
    airtel: wholeNumber(env, 'AIRTEL_MAX_AMOUNT', 5_000_000),
  };
  const simulatorUrl = optionalUrl(env, 'SIMULATOR_URL')?.replace(/\/+$/, '');
  if (simulatorUrl && provider !== 'simulator') {
    throw new ConfigError('SIMULATOR_URL applies only to PAYMENT_PROVIDER=simulator');
  }
  if (simulatorUrl && env.SIMULATOR_PORT) {
    throw new ConfigError(
      'set SIMULATOR_URL (a running simulator) or SIMULATOR_PORT (one started here), not both',
    );
  }
  const common: PaymentsConfig = { provider, timeScale, simulatorPort, httpTimeoutMs, maxAmount };
  if (provider === 'simulator') return { ...common, ...(simulatorUrl ? { simulatorUrl } : {}) };
  return {
    ...common,
    mtn: {
      baseUrl: required(env, 'MOMO_BASE_URL'),
      subscriptionKey: required(env, 'MOMO_SUBSCRIPTION_KEY'),
      apiUser: required(env, 'MOMO_API_USER'),
      apiKey: required(env, 'MOMO_API_KEY'),
      targetEnvironment: env.MOMO_TARGET_ENVIRONMENT || 'mtnuganda',
    },
    airtel: {
      baseUrl: required(env, 'AIRTEL_BASE_URL'),
      clientId: required(env, 'AIRTEL_CLIENT_ID'),
      clientSecret: required(env, 'AIRTEL_CLIENT_SECRET'),
    },
  };
}

function url(env: NodeJS.ProcessEnv, name: string, fallback: string): URL {
  const raw = env[name] ?? fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`${name} must use http or https, got "${raw}"`);
  }
  if (parsed.pathname !== '/' || parsed.search || parsed.hash) {
    throw new ConfigError(`${name} must be an origin without a path, got "${raw}"`);
  }
  return parsed;
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name} must be a positive number, got "${raw}"`);
  return n;
}

function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const n = positive(env, name, fallback);
  if (!Number.isInteger(n)) throw new ConfigError(`${name} must be a whole number, got "${env[name]}"`);
  return n;
}

/** At least one largest order (10 tickets, MAX_TICKETS_PER_ORDER), or such an order could never be placed. */
function holdLimit(env: NodeJS.ProcessEnv): number {
  const n = wholeNumber(env, 'HOLD_LIMIT_TICKETS_PER_IP', 20);
  if (n < 10) {
    throw new ConfigError(`HOLD_LIMIT_TICKETS_PER_IP must be at least 10 (one full order), got "${n}"`);
  }
  return n;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function limit(env: NodeJS.ProcessEnv, prefix: string, rate: number, burst: number): RateLimitSetting {
  return { rate: positive(env, `${prefix}_RATE`, rate), burst: positive(env, `${prefix}_BURST`, burst) };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const nodeEnv = env.NODE_ENV ?? 'development';
  if (nodeEnv !== 'development' && nodeEnv !== 'production' && nodeEnv !== 'test') {
    throw new ConfigError(`NODE_ENV must be development, production or test, got "${nodeEnv}"`);
  }
  const databaseUrl = env.DATABASE_URL || undefined;
  const writeConcurrency = Math.ceil(positive(env, 'WRITE_CONCURRENCY', 32));
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const adminApiKey = env.ADMIN_API_KEY || undefined;
  if (adminApiKey !== undefined && adminApiKey.length < 24) {
    throw new ConfigError('ADMIN_API_KEY must be at least 24 characters');
  }
  if (nodeEnv === 'production' && !adminApiKey) {
    throw new ConfigError('ADMIN_API_KEY is required when NODE_ENV=production');
  }
  const apiUrl = url(env, 'API_URL', 'http://127.0.0.1:4000');
  const siteUrl = url(env, 'SITE_URL', 'http://localhost:4001');
  const appUrl = url(env, 'APP_URL', 'http://127.0.0.1:4002');
  return {
    env: nodeEnv,
    apiUrl,
    siteUrl,
    appUrl,
    databaseUrl,
    dataDir: env.DATA_DIR || '.data',
    redisUrl: env.REDIS_URL || undefined,
    adminApiKey,
    logLevel: env.LOG_LEVEL || (nodeEnv === 'test' ? 'silent' : 'info'),
    seedDemo: flag(env, 'SEED_DEMO', !databaseUrl && nodeEnv !== 'test'),
    tokenTtlSeconds: 3600,
    holdMinutes: positive(env, 'HOLD_MINUTES', 15),
    holdLimitTicketsPerIp: holdLimit(env),
    promptLimitPerPhone: wholeNumber(env, 'PROMPT_LIMIT_PER_PHONE', 3),
    runJobs: flag(env, 'RUN_JOBS', true),
    writeConcurrency,
    databaseConnections: {
      reads: Math.ceil(positive(env, 'DATABASE_READ_CONNECTIONS', 2)),
      // every admitted creation can have its transaction at once, with room for background jobs
      transactions: Math.ceil(positive(env, 'DATABASE_TRANSACTION_CONNECTIONS', writeConcurrency + 2)),
    },
    rateLimits: {
      // SPEC.md section 8: about 10 requests per minute per client id from one IP.
      tokenEndpoint: limit(env, 'RATE_LIMIT_TOKEN', 10 / 60, 10),
      bearer: limit(env, 'RATE_LIMIT_BEARER', 100, 200),
      publishableKey: limit(env, 'RATE_LIMIT_PUBLISHABLE', 20, 40),
      sitePages: limit(env, 'RATE_LIMIT_SITE', 30, 60),
      // Providers call back from a few addresses, one callback per payment: room for a flash sale's.
      callback: limit(env, 'RATE_LIMIT_CALLBACK', 50, 200),
    },
    payments: paymentsConfig(env, nodeEnv),
    webhooks: webhooksConfig(env, nodeEnv),
    demoWebhookUrl: optionalUrl(env, 'DEMO_WEBHOOK_URL'),
    shutdownGraceSeconds: positive(env, 'SHUTDOWN_GRACE_SECONDS', 10),
    http: {
      headersTimeoutMs: Math.ceil(positive(env, 'REQUEST_HEADERS_TIMEOUT_MS', 10_000)),
      bodyTimeoutMs: Math.ceil(positive(env, 'REQUEST_BODY_TIMEOUT_MS', 10_000)),
      keepAliveTimeoutMs: Math.ceil(positive(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000)),
    },
  };
}
