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

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: 'partner-ticketing' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
