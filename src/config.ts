// Environment -> typed configuration. The variables are declared in config-schema.ts (type, bounds,
// default, meaning); loadConfig parses the environment through that schema once, checks the rules
// between variables, then builds the Config the code uses. A bad value stops the start with one line
// naming the variable, what it accepts and what it got.
import {
  Type,
  type Static,
  type TNumberOptions,
  type TObject,
  type TSchema,
  type TSchemaOptions,
  type TStringOptions,
} from 'typebox';
import { Value } from 'typebox/value';
import type { DatabaseConnections } from './platform/db.ts';
import type { HttpLimits } from './platform/client-errors.ts';
import type { OverloadSettings } from './platform/overload.ts';
import type { TracingSettings } from './platform/tracing.ts';
import {
  EnvSchema,
  ServiceEnvSchema,
  type Env,
  type EnvName,
  type RateLimitSetting,
} from './config-schema.ts';
import type { MethodSettings } from './payments/methods/method-settings.ts';
import { PAYMENT_METHOD_SETTINGS } from './payments/methods/settings.ts';

import { ConfigError } from './config-error.ts';
import { paymentsConfig, type PaymentsConfig } from './config-payments.ts';

export { ConfigError, EnvSchema, type Env, type RateLimitSetting };

export interface Config {
  env: Env['NODE_ENV'];
  apiUrl: URL;
  siteUrl: URL;
  appUrl: URL;
  /** PostgreSQL URL; absent means embedded PGlite under dataDir */
  databaseUrl: string | undefined;
  /** embedded database directory; 'memory://' keeps it in memory */
  dataDir: string;
  redisUrl: string | undefined;
  /** put before every Redis key (several deployments on one Redis) */
  redisKeyPrefix: string;
  /** fixed admin key; when absent a generated one is kept (hashed) in the database */
  adminApiKey: string | undefined;
  logLevel: NonNullable<Env['LOG_LEVEL']>;
  /** OpenTelemetry traces: on when an OTLP endpoint is set */
  tracing: TracingSettings;
  /** seed the demo organization on an empty database */
  seedDemo: boolean;
  /** trust X-Forwarded-For for request.ip (behind a load balancer) */
  trustProxy: boolean;
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
  /** worker processes (node:cluster); 1 runs the service in this process */
  webConcurrency: number;
  /** PostgreSQL connections of this process, by use */
  databaseConnections: DatabaseConnections;
  /** when this process sheds new requests on the public hosts (503 + Retry-After) */
  overload: OverloadSettings;
  rateLimits: {
    tokenEndpoint: RateLimitSetting;
    bearer: RateLimitSetting;
    publishableKey: RateLimitSetting;
    sitePages: RateLimitSetting;
    /** provider callbacks, per client IP */
    callback: RateLimitSetting;
    /** organizer app sign-in attempts, per account (email) and per client IP */
    signInAccount: RateLimitSetting;
    signInIp: RateLimitSetting;
  };
  payments: PaymentsConfig;
  webhooks: WebhooksConfig;
  /** DEMO_WEBHOOK_URL: the demo organization gets a webhook endpoint for it when seeded */
  demoWebhookUrl: string | undefined;
  /** open event streams (`listen`) in this process: in all, and per organization (never above all) */
  eventStreams: { perProcess: number; perOrganization: number };
  /** live (not revoked) API clients one organization may have */
  apiClientsPerOrganization: number;
  /** seconds granted for in-flight requests at shutdown */
  shutdownGraceSeconds: number;
  mail: MailConfig;
  /** the organizer app's sign-in sessions */
  appSessions: { idleMinutes: number; maxHours: number };
  /** how long a client may take to send a header block and a body, and keep a connection idle */
  http: HttpLimits;
  /** the Prometheus listener (METRICS_PORT, METRICS_HOST); undefined: no metrics at all */
  metrics: { host: string; port: number } | undefined;
  /** how long personal data and logs of deliveries are kept (src/privacy/, docs/privacy.md) */
  retention: RetentionSettings;
}

interface RetentionSettings {
  /** days after an event's end that its orders keep their buyers' personal data */
  buyerDataDays: number;
  /** days finished webhook deliveries (with their attempts) and outbox events are kept */
  webhookDays: number;
  /** days ended unpaid orders, expired checkout sessions and ended app sessions are kept */
  expiredDays: number;
}

interface MailConfig {
  /** SMTP_URL; absent: development and tests keep mail in the database (APP_URL/dev/mailbox); production sends none */
  smtpUrl: string | undefined;
  from: string;
}

interface WebhooksConfig {
  /**
   * Development and tests only (refused in production): http URLs and receivers on loopback or
   * private addresses, e.g. http://localhost:3000/hooks.
   */
  allowPrivateUrls: boolean;
  /** multiplies the retry schedule and the outbox polling interval (tests: 0.0001) */
  timeScale: number;
  /** deadline of one delivery, response included; kept under the delivery lease */
  timeoutMs: number;
  /** deliveries this process sends at once */
  concurrency: number;
  /** deliveries this process starts per second at most */
  sendRate: number;
}

/** Environment text as the type its schema declares, so that the schema can check it. */
function fromText(schema: TSchema, text: string): unknown {
  if (Type.IsNumber(schema) || Type.IsInteger(schema)) {
    const n = Number(text);
    return text.trim() !== '' && Number.isFinite(n) ? n : text;
  }
  if (Type.IsBoolean(schema)) {
    const word = text.toLowerCase();
    if (['1', 'true', 'yes'].includes(word)) return true;
    if (['0', 'false', 'no'].includes(word)) return false;
  }
  return text;
}

/** What a variable accepts, in words, from its schema's keywords. */
function describeAllowed(schema: TSchema): string {
  if (Type.IsRefine(schema)) {
    return schema['~refine'].map((refinement) => refinement.error(undefined)).join(', ');
  }
  if (Type.IsEnum(schema)) {
    const values = schema.enum.map(String);
    return `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
  }
  if (Type.IsBoolean(schema)) return 'true or false, 1 or 0, yes or no';
  const { minimum, maximum, exclusiveMinimum, minLength } = schema as TNumberOptions & TStringOptions;
  if (Type.IsString(schema)) {
    return minLength === undefined ? 'text' : `at least ${minLength} characters long`;
  }
  const integer = Type.IsInteger(schema);
  const noun = integer ? 'whole number' : 'number';
  const atMost = maximum === undefined ? '' : `, at most ${maximum}`;
  if (exclusiveMinimum === 0 || (integer && minimum === 1)) return `a positive ${noun}${atMost}`;
  if (exclusiveMinimum !== undefined) return `a ${noun} above ${exclusiveMinimum}${atMost}`;
  if (minimum !== undefined && maximum !== undefined) return `a ${noun} from ${minimum} to ${maximum}`;
  if (minimum !== undefined) return `a ${noun}, at least ${minimum}`;
  return `a ${noun}${atMost}`;
}

/** `NAME must be <allowed>, got "<text>" (<meaning>)`; a secret's text is not repeated. */
function describeBadValue(name: string, schema: TSchema, text: string): string {
  const { description, writeOnly } = schema as TSchemaOptions;
  const got = writeOnly ? 'got a value that is not shown here' : `got "${text}"`;
  return `${name} must be ${describeAllowed(schema)}, ${got}${description ? ` (${description})` : ''}`;
}

/** Reads the variables a schema declares from an environment, or throws ConfigError for the first bad one. */
function parseVariables<Schema extends TObject>(schema: Schema, env: NodeJS.ProcessEnv): Static<Schema> {
  const given: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema.properties as Record<string, TSchema>)) {
    const text = env[name];
    if (text !== undefined && text !== '') given[name] = fromText(property, text);
  }
  const values = Value.Default(schema, given);
  for (const error of Value.Errors(schema, values)) {
    const name = error.instancePath.slice(1);
    const property = (schema.properties as Record<string, TSchema>)[name];
    if (property) throw new ConfigError(describeBadValue(name, property, env[name] ?? ''));
    throw new ConfigError(`configuration: ${error.message}`);
  }
  return values as Static<Schema>;
}

/**
 * One variable read through its schema, for the programs beside the service (the simulator's own
 * main, the CLI) that share it; undefined when unset and the schema has no default.
 */
export function readVariable<Name extends EnvName>(
  name: Name,
  env: NodeJS.ProcessEnv = process.env,
): Env[Name] {
  const values = parseVariables(Type.Object({ [name]: ServiceEnvSchema.properties[name] }), env);
  return (values as Record<string, unknown>)[name] as Env[Name];
}

/** When this process sheds; docs/decisions/shedding-signals.md. */
function overloadSettings(env: Env): OverloadSettings {
  const retryAfterSeconds = env.OVERLOAD_RETRY_AFTER_SECONDS;
  // A developer's machine is loaded by their builds and tests, not by the service's own work.
  if (env.NODE_ENV === 'development') {
    return { maxEventLoopDelayMs: 0, maxQueued: 0, maxQueueTimeMs: 0, retryAfterSeconds };
  }
  return {
    maxEventLoopDelayMs: env.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
    maxQueued: env.OVERLOAD_MAX_QUEUED,
    // The suite's many processes share a small machine: a test's waits measure the machine.
    maxQueueTimeMs: env.OVERLOAD_MAX_QUEUE_TIME_MS ?? (env.NODE_ENV === 'test' ? 0 : 2000),
    retryAfterSeconds,
  };
}

function limit(rate: number, burst: number): RateLimitSetting {
  return { rate, burst };
}

export interface LoadConfigOptions {
  /**
   * the settings of payment methods beyond those of payments/methods/settings.ts, for a service
   * given other methods (createService's paymentMethods); each read like theirs
   */
  paymentMethods?: readonly MethodSettings[];
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env, options: LoadConfigOptions = {}): Config {
  const env = parseVariables(ServiceEnvSchema, source);
  const extra = (options.paymentMethods ?? []).filter((m) => !PAYMENT_METHOD_SETTINGS.some((s) => s === m));
  const methods: readonly MethodSettings[] = [...PAYMENT_METHOD_SETTINGS, ...extra];
  for (const method of extra) {
    for (const name of Object.keys(method.env)) {
      if (name in EnvSchema.properties) throw new ConfigError(`${name} is read by two payment methods`);
    }
  }
  const production = env.NODE_ENV === 'production';
  // Rules between variables, which the schema of each cannot state.
  if (production && !env.ADMIN_API_KEY) {
    throw new ConfigError('ADMIN_API_KEY is required when NODE_ENV=production');
  }
  if (production && env.WEBHOOK_ALLOW_PRIVATE_URLS) {
    throw new ConfigError(
      'WEBHOOK_ALLOW_PRIVATE_URLS is for development and tests only, not NODE_ENV=production',
    );
  }
  // Several processes share neither an embedded database nor in-memory rate limits.
  if (env.WEB_CONCURRENCY > 1 && (!env.DATABASE_URL || !env.REDIS_URL)) {
    throw new ConfigError(
      'WEB_CONCURRENCY above 1 needs DATABASE_URL (PostgreSQL) and REDIS_URL (shared rate limits)',
    );
  }
  const writeConcurrency = Math.ceil(env.WRITE_CONCURRENCY);
  return {
    env: env.NODE_ENV,
    apiUrl: new URL(env.API_URL),
    siteUrl: new URL(env.SITE_URL),
    appUrl: new URL(env.APP_URL),
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    redisUrl: env.REDIS_URL,
    redisKeyPrefix: env.REDIS_KEY_PREFIX,
    adminApiKey: env.ADMIN_API_KEY,
    logLevel: env.LOG_LEVEL ?? (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    tracing: { endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME },
    seedDemo: env.SEED_DEMO ?? (!env.DATABASE_URL && env.NODE_ENV !== 'test'),
    trustProxy: env.TRUST_PROXY,
    tokenTtlSeconds: 3600,
    holdMinutes: env.HOLD_MINUTES,
    holdLimitTicketsPerIp: env.HOLD_LIMIT_TICKETS_PER_IP,
    promptLimitPerPhone: env.PROMPT_LIMIT_PER_PHONE,
    runJobs: env.RUN_JOBS,
    writeConcurrency,
    databaseConnections: {
      reads: Math.ceil(env.DATABASE_READ_CONNECTIONS),
      // every admitted creation can have its transaction at once, with room for background jobs
      transactions: Math.ceil(env.DATABASE_TRANSACTION_CONNECTIONS ?? writeConcurrency + 2),
    },
    overload: overloadSettings(env),
    rateLimits: {
      // The contract's limit: about 10 requests a minute per client id from one IP
      // (docs/contract.md#rate-limits).
      tokenEndpoint: limit(env.RATE_LIMIT_TOKEN_RATE, env.RATE_LIMIT_TOKEN_BURST),
      bearer: limit(env.RATE_LIMIT_BEARER_RATE, env.RATE_LIMIT_BEARER_BURST),
      publishableKey: limit(env.RATE_LIMIT_PUBLISHABLE_RATE, env.RATE_LIMIT_PUBLISHABLE_BURST),
      sitePages: limit(env.RATE_LIMIT_SITE_RATE, env.RATE_LIMIT_SITE_BURST),
      callback: limit(env.RATE_LIMIT_CALLBACK_RATE, env.RATE_LIMIT_CALLBACK_BURST),
      signInAccount: limit(env.RATE_LIMIT_SIGN_IN_ACCOUNT_RATE, env.RATE_LIMIT_SIGN_IN_ACCOUNT_BURST),
      signInIp: limit(env.RATE_LIMIT_SIGN_IN_IP_RATE, env.RATE_LIMIT_SIGN_IN_IP_BURST),
    },
    payments: paymentsConfig(env, methods, (properties) => parseVariables(Type.Object(properties), source)),
    webhooks: {
      allowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS ?? env.NODE_ENV === 'development',
      timeScale: env.WEBHOOK_TIME_SCALE,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      concurrency: env.WEBHOOK_CONCURRENCY,
      sendRate: env.WEBHOOK_SEND_RATE,
    },
    demoWebhookUrl: env.DEMO_WEBHOOK_URL && new URL(env.DEMO_WEBHOOK_URL).toString(),
    eventStreams: {
      perProcess: env.EVENT_STREAMS_PER_PROCESS,
      perOrganization: Math.min(env.EVENT_STREAMS_PER_ORGANIZATION, env.EVENT_STREAMS_PER_PROCESS),
    },
    apiClientsPerOrganization: env.API_CLIENTS_PER_ORGANIZATION,
    shutdownGraceSeconds: env.SHUTDOWN_GRACE_SECONDS,
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
    appSessions: { idleMinutes: env.APP_SESSION_IDLE_MINUTES, maxHours: env.APP_SESSION_MAX_HOURS },
    http: {
      headersTimeoutMs: Math.ceil(env.REQUEST_HEADERS_TIMEOUT_MS),
      bodyTimeoutMs: Math.ceil(env.REQUEST_BODY_TIMEOUT_MS),
      keepAliveTimeoutMs: Math.ceil(env.KEEP_ALIVE_TIMEOUT_MS),
    },
    webConcurrency: env.WEB_CONCURRENCY,
    metrics: env.METRICS_PORT === undefined ? undefined : { host: env.METRICS_HOST, port: env.METRICS_PORT },
    retention: {
      buyerDataDays: env.RETENTION_BUYER_DATA_DAYS,
      webhookDays: env.RETENTION_WEBHOOK_DAYS,
      expiredDays: env.RETENTION_EXPIRED_DAYS,
    },
  };
}
