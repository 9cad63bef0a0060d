// Structured logs (pino). Credentials never reach a log line.
import pino, { type Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-service-publishable-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.client_secret',
  '*.access_token',
  '*.secret',
  '*.password',
  '*.admin_api_key',
  '*.publishable_key',
  'client_secret',
  'access_token',
  'secret',
  'admin_api_key',
];

const LOGGED_HEADERS = [
  'user-agent',
  'origin',
  'content-type',
  'content-length',
  'idempotency-key',
  'authorization',
  'x-service-publishable-key',
];

interface LoggedRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  headers: Record<string, string | string[] | undefined>;
}

/** The request as logged: a few useful headers; credentials are then censored by `redact`. */
function serializeRequest(req: LoggedRequest) {
  const headers: Record<string, unknown> = {};
  for (const name of LOGGED_HEADERS) if (req.headers?.[name] !== undefined) headers[name] = req.headers[name];
  return { method: req.method, url: req.url, host: req.host, ip: req.ip, headers };
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      serializers: { req: serializeRequest, err: pino.stdSerializers.err },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: 'partner-ticketing' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * Fastify's per-request logger, made when something is logged: a pino child costs a few µs per
 * request (its bindings go through redact), and at the levels enabled in production most requests
 * log nothing. Fastify asks for its methods on every request (they are checked, then `info` is
 * called for each request): a method of a level that is off does nothing, and the first call of
 * one that is on makes the child.
 */
export class LazyChildLogger {
  readonly #parent: Logger;
  readonly #bindings: pino.Bindings;
  readonly #options: pino.ChildLoggerOptions;
  #child: Logger | null = null;

  constructor(parent: Logger, bindings: pino.Bindings, options: pino.ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #real(): Logger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#options));
  }

  #log(level: Level, args: unknown[]): void {
    if (this.#child ? this.#child.isLevelEnabled(level) : this.#parent.isLevelEnabled(level)) {
      (this.#real()[level] as (...a: unknown[]) => void)(...args);
    }
  }

  get level(): string {
    return this.#child?.level ?? this.#parent.level;
  }
  set level(level: string) {
    this.#real().level = level;
  }
  silent(): void {}
  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    return this.#real().child(bindings, options);
  }
}
