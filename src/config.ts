// Environment -> typed configuration. Bad values fail at start with one line naming the variable.

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
  /** run background jobs (hold and session expiry, later payments and webhooks) in this process */
  runJobs: boolean;
  rateLimits: {
    tokenEndpoint: RateLimitSetting;
    bearer: RateLimitSetting;
    publishableKey: RateLimitSetting;
    sitePages: RateLimitSetting;
  };
  /** seconds granted for in-flight requests at shutdown */
  shutdownGraceSeconds: number;
}

export class ConfigError extends Error {}

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
    runJobs: flag(env, 'RUN_JOBS', true),
    rateLimits: {
      // SPEC.md section 8: about 10 requests per minute per client id from one IP.
      tokenEndpoint: limit(env, 'RATE_LIMIT_TOKEN', 10 / 60, 10),
      bearer: limit(env, 'RATE_LIMIT_BEARER', 100, 200),
      publishableKey: limit(env, 'RATE_LIMIT_PUBLISHABLE', 20, 40),
      sitePages: limit(env, 'RATE_LIMIT_SITE', 30, 60),
    },
    shutdownGraceSeconds: positive(env, 'SHUTDOWN_GRACE_SECONDS', 10),
  };
}
