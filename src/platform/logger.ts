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
