// Every environment variable the service reads, as one TypeBox schema: type, bounds, default and
// meaning; the service's own here, each payment method's from its folder (payments/methods/settings.ts).
// config.ts parses the environment through it and builds the Config the code uses; the README's
// configuration table is checked against it.
import { isIP } from 'node:net';
import { Type, type Static, type TProperties } from 'typebox';
import { flag, httpUrl, origin, positive, rateLimit, type RateLimitSetting } from './config-schema-parts.ts';
import { PAYMENT_METHOD_SETTINGS } from './payments/methods/settings.ts';

/**
 * The variables of the service itself: every one but the payment methods' own, which each method
 * declares in its folder (payments/methods/<key>/<key>-settings.ts). An empty value counts as unset.
 */
export const ServiceEnvSchema = Type.Object({
  NODE_ENV: Type.Enum(['development', 'production', 'test'], {
    default: 'development',
    description: 'production asks for https webhooks and a fixed admin key; test logs nothing',
  }),
  API_URL: origin('http://127.0.0.1:4000', "public URL of the partner API; its port is the API listener's"),
  SITE_URL: origin(
    'http://localhost:4001',
    "public URL of the checkout site; its port is the site listener's",
  ),
  APP_URL: origin('http://127.0.0.1:4002', 'public URL of the organizer app and admin API'),
  DATABASE_URL: Type.Optional(
    Type.Refine(
      Type.String({
        writeOnly: true,
        description: 'PostgreSQL URL; absent means embedded PGlite under DATA_DIR',
      }),
      (text) => /^postgres(ql)?:\/\//.test(text),
      () => 'a postgres:// or postgresql:// URL',
    ),
  ),
  DATA_DIR: Type.String({
    default: '.data',
    description: "embedded database directory and demo.json; 'memory://' keeps the database in memory",
  }),
  REDIS_URL: Type.Optional(
    Type.String({
      writeOnly: true,
      description: 'Redis for rate-limit counters shared by several processes',
    }),
  ),
  REDIS_KEY_PREFIX: Type.Refine(
    Type.String({
      default: '',
      description: 'put before every Redis key, so several deployments can share one Redis',
    }),
    (text) => /^[A-Za-z0-9_.:-]{0,64}$/.test(text),
    () => "up to 64 letters, digits, '_', '.', ':' or '-'",
  ),
  ADMIN_API_KEY: Type.Optional(
    Type.String({
      minLength: 24,
      writeOnly: true,
      description: 'fixed admin API key, required in production; otherwise one is generated on first start',
    }),
  ),
  LOG_LEVEL: Type.Optional(
    Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      description: 'pino level; default info, silent when NODE_ENV=test',
    }),
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(
    httpUrl('OpenTelemetry collector, OTLP over HTTP: traces go to its /v1/traces; unset, no traces'),
  ),
  OTEL_SERVICE_NAME: Type.String({ default: 'partner-ticketing', description: 'service.name of the traces' }),
  SEED_DEMO: Type.Optional(
    Type.Boolean({
      description: 'seed the demo organization into an empty database; default: on PGlite, outside tests',
    }),
  ),
  TRUST_PROXY: flag(false, 'trust X-Forwarded-For for client addresses, behind a load balancer'),
  SMTP_URL: Type.Optional(
    Type.Refine(
      Type.String({
        writeOnly: true,
        description:
          'SMTP server for mail (smtp:// or smtps://, user and password in the URL); without it, development keeps mail for APP_URL/dev/mailbox',
      }),
      (text) => /^smtps?:\/\//.test(text),
      () => 'an smtp:// or smtps:// URL',
    ),
  ),
  MAIL_FROM: Type.String({
    default: 'Race Tickets <no-reply@localhost>',
    description: 'the From of mail the service sends',
  }),
  APP_SESSION_IDLE_MINUTES: positive(8 * 60, 'an organizer app session ends after this long unused'),
  APP_SESSION_MAX_HOURS: positive(
    7 * 24,
    'an organizer app session ends this long after sign-in, however used',
  ),
  ...rateLimit(
    'RATE_LIMIT_SIGN_IN_ACCOUNT',
    { rate: 1 / 180, burst: 5 },
    'organizer app sign-in attempts per account',
  ),
  ...rateLimit('RATE_LIMIT_SIGN_IN_IP', { rate: 1 / 30, burst: 20 }, 'organizer app sign-in attempts per IP'),
  ...rateLimit('RATE_LIMIT_TOKEN', { rate: 10 / 60, burst: 10 }, 'token endpoint, per client id and IP'),
  ...rateLimit('RATE_LIMIT_BEARER', { rate: 100, burst: 200 }, 'per API client with a bearer token'),
  ...rateLimit('RATE_LIMIT_PUBLISHABLE', { rate: 20, burst: 40 }, 'per publishable key and IP'),
  ...rateLimit('RATE_LIMIT_SITE', { rate: 30, burst: 60 }, 'per IP on checkout pages'),
  // Providers call back from a few addresses, one callback per payment: room for a flash sale's.
  ...rateLimit('RATE_LIMIT_CALLBACK', { rate: 50, burst: 200 }, 'payment provider callbacks, per IP'),
  SHUTDOWN_GRACE_SECONDS: positive(10, 'longest wait for in-flight requests at shutdown'),
  REQUEST_HEADERS_TIMEOUT_MS: positive(
    10_000,
    'longest a client may take to send a request line and headers',
  ),
  REQUEST_BODY_TIMEOUT_MS: positive(
    10_000,
    'longest a client may take to send a body once its headers are in',
  ),
  KEEP_ALIVE_TIMEOUT_MS: positive(72_000, 'an idle kept-alive connection is closed after this'),
  WRITE_CONCURRENCY: positive(32, 'requests creating orders or checkout sessions worked on at once'),
  WEB_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: 1,
    description: 'worker processes on this machine (node:cluster); above 1 needs DATABASE_URL and REDIS_URL',
  }),
  // Load shedding (platform/overload.ts), never when NODE_ENV=development; defaults and why in
  // docs/decisions/load-shedding.md and the records it links.
  OVERLOAD_MAX_QUEUED: Type.Integer({
    minimum: 0,
    maximum: 1_000_000,
    default: 1200,
    description:
      'requests in hand (arrived and not answered, waiting for write admission included) at which new ones are shed with 503; 0 is off',
  }),
  OVERLOAD_MAX_QUEUE_TIME_MS: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 60_000,
      description:
        'how long a request in hand may wait for its work to start before new ones are shed with 503; 0 is off; default 2000, 0 when NODE_ENV=test',
    }),
  ),
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: Type.Number({
    minimum: 0,
    maximum: 60_000,
    default: 0,
    description:
      'p99 event-loop delay over half a second above which new requests are shed with 503 (other processes on the machine raise it too); 0 is off',
  }),
  OVERLOAD_RETRY_AFTER_SECONDS: Type.Integer({
    minimum: 1,
    default: 5,
    description: 'the Retry-After of a request shed under overload, and of /readyz meanwhile',
  }),
  DATABASE_READ_CONNECTIONS: positive(2, 'PostgreSQL connections for statements outside transactions'),
  DATABASE_TRANSACTION_CONNECTIONS: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description: 'PostgreSQL connections for transactions; default WRITE_CONCURRENCY + 2',
    }),
  ),
  RUN_JOBS: flag(true, 'run background jobs in this process: expiry, payment polling, webhook delivery'),
  API_CLIENTS_PER_ORGANIZATION: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 25,
    description: 'live (not revoked) API clients one organization may have; creating one more is 409',
  }),
  HOLD_MINUTES: positive(15, 'how long a pending order holds its tickets, in minutes'),
  HOLD_LIMIT_TICKETS_PER_IP: Type.Integer({
    // at least one largest order (10 tickets, MAX_TICKETS_PER_ORDER), or such an order could never be placed
    minimum: 10,
    default: 20,
    description:
      'tickets one client IP may take per event through the hosted checkout page: unpaid holds, and free places for HOLD_MINUTES after they are taken',
  }),
  PROMPT_LIMIT_PER_PHONE: Type.Integer({
    minimum: 1,
    default: 3,
    description: 'payment prompts the hosted checkout page sends one phone number in any 10 minutes',
  }),
  PAYMENT_PROVIDER: Type.Optional(
    Type.Enum(['simulator', 'live'], {
      description: "the provider simulator or the payment methods' real APIs; default live in production",
    }),
  ),
  PAYMENT_TIME_SCALE: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description:
        'multiplies simulator delays, polling and prompt windows; default SIMULATOR_TIME_SCALE, else 1',
    }),
  ),
  SIMULATOR_TIME_SCALE: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, description: "the simulator's time scale; 1 is real time" }),
  ),
  PAYMENT_HTTP_TIMEOUT_MS: positive(15_000, 'time-out of each call to a payment provider'),
  SIMULATOR_PORT: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 65535, description: 'port of the simulator; 0 is any free port' }),
  ),
  SIMULATOR_URL: Type.Optional(httpUrl('a simulator running there, instead of one started in-process')),
  WEBHOOK_ALLOW_PRIVATE_URLS: Type.Optional(
    Type.Boolean({
      description:
        'allow http webhook URLs on this machine and private networks; default true when NODE_ENV=development, refused in production',
    }),
  ),
  WEBHOOK_TIME_SCALE: positive(
    1,
    'multiplies the webhook retry schedule and outbox polling; tests shorten it',
  ),
  WEBHOOK_TIMEOUT_MS: Type.Number({
    // the delivery lease is this plus 30 s
    exclusiveMinimum: 0,
    maximum: 30_000,
    default: 15_000,
    description: 'time-out of each webhook delivery attempt, response included',
  }),
  WEBHOOK_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 256,
    default: 16,
    description: 'webhook deliveries this process sends at once',
  }),
  WEBHOOK_SEND_RATE: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 600,
    description:
      'webhook deliveries this process starts per second at most, so a backlog leaves CPU for requests',
  }),
  DEMO_WEBHOOK_URL: Type.Optional(httpUrl('a webhook endpoint for the demo organization when it is seeded')),
  EVENT_STREAMS_PER_PROCESS: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 500,
    description:
      'event streams (GET /v1/webhook-events/stream) this process holds open at once; the next is 503',
  }),
  // Slots, not a percentage: docs/decisions/organization-share-of-streams.md.
  EVENT_STREAMS_PER_ORGANIZATION: Type.Integer({
    minimum: 1,
    maximum: 100_000,
    default: 50,
    description:
      'event streams one organization may hold open in this process (at most EVENT_STREAMS_PER_PROCESS); the next is 429',
  }),
  // Retention (src/privacy/retention-pass.ts); what each covers and why: docs/privacy.md.
  RETENTION_BUYER_DATA_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 730,
    description:
      "days after an event's end that its orders keep the buyer's and participants' personal data, then replaced by [erased] (amounts and counts stay)",
  }),
  RETENTION_WEBHOOK_DAYS: Type.Integer({
    // a failed delivery can still be retried by hand the week after its last attempt
    minimum: 7,
    maximum: 3650,
    default: 90,
    description:
      'days finished webhook deliveries with their attempts, and outbox events, are kept; pending ones are kept until they finish',
  }),
  RETENTION_EXPIRED_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 30,
    description:
      'days unpaid orders that expired or were cancelled, expired checkout sessions, and ended app sessions, password resets and invitations are kept',
  }),
  METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65535,
      description: 'port of the Prometheus metrics listener (GET /metrics); unset: none; 0 is any free port',
    }),
  ),
  METRICS_HOST: Type.Refine(
    Type.String({ default: '127.0.0.1', description: 'address the metrics listener binds' }),
    (text) => isIP(text) !== 0 || /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/i.test(text),
    () => 'an IP address or a host name, such as 127.0.0.1',
  ),
});

/** The service's variables with each payment method's, each named once. */
function composeSchema() {
  const properties: TProperties = { ...ServiceEnvSchema.properties };
  for (const method of PAYMENT_METHOD_SETTINGS) {
    for (const [name, schema] of Object.entries(method.env)) {
      if (name in properties) throw new Error(`environment variable ${name} is declared twice`);
      properties[name] = schema;
    }
  }
  return Type.Object(properties);
}

/** Every environment variable the service reads (the README's configuration table lists them). */
export const EnvSchema = composeSchema();

/** The service's own variables as the schema reads them, defaults applied. */
export type Env = Static<typeof ServiceEnvSchema>;
export type EnvName = keyof typeof ServiceEnvSchema.properties;

export type { RateLimitSetting };
