// The CLI's HTTP side: one call to the admin API, its envelope unwrapped, its error kept whole.
import { readFileSync } from 'node:fs';
import { DEFAULT_APP_URL, demoFileOf } from './cli-defaults.ts';

export interface FieldError {
  field: string;
  message: string;
}

/** An error answer of the admin API (the error envelope), or a response that was not one. */
export class ApiFailure extends Error {
  readonly status: number;
  readonly errorCode: string;
  readonly errors: FieldError[];
  readonly requestId: string | undefined;

  constructor(status: number, errorCode: string, message: string, errors: FieldError[], requestId?: string) {
    super(message);
    this.status = status;
    this.errorCode = errorCode;
    this.errors = errors;
    this.requestId = requestId;
  }
}

/** The service could not be reached at all. */
export class NetworkFailure extends Error {}

/** Missing or unreadable configuration (exit code 2, like a usage error). */
export class ConfigFailure extends Error {}

export interface AdminClient {
  call(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<Record<string, unknown>>;
}

/** ADMIN_API_KEY, else admin_api_key from DATA_DIR/demo.json (written on the demo's first start). */
export function resolveAdminKey(env: NodeJS.ProcessEnv): string {
  if (env.ADMIN_API_KEY) return env.ADMIN_API_KEY;
  const file = demoFileOf(env);
  let key: unknown;
  try {
    key = (JSON.parse(readFileSync(file, 'utf8')) as { admin_api_key?: unknown }).admin_api_key;
  } catch {
    key = undefined;
  }
  if (typeof key === 'string' && key) return key;
  throw new ConfigFailure(
    `no admin key: set ADMIN_API_KEY (or start the service once so that ${file} holds admin_api_key)`,
  );
}

export function resolveAppUrl(env: NodeJS.ProcessEnv, override?: string): string {
  const raw = override ?? env.APP_URL ?? DEFAULT_APP_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigFailure(`the app URL must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigFailure(`the app URL must use http or https, got "${raw}"`);
  }
  return url.origin;
}

export function createAdminClient(options: { appUrl: string; adminKey: string }): AdminClient {
  return {
    async call(method, path, body) {
      const url = `${options.appUrl}/admin/v1${path}`;
      let res: Response;
      try {
        res = await fetch(url, {
          method,
          headers: {
            authorization: `Bearer ${options.adminKey}`,
            accept: 'application/json',
            ...(body !== undefined && { 'content-type': 'application/json' }),
          },
          ...(body !== undefined && { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(30_000),
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        const reason = cause?.code ?? cause?.message ?? (error as Error).message;
        throw new NetworkFailure(`could not reach the admin API at ${options.appUrl}: ${reason}`);
      }
      const text = await res.text();
      let parsed: Record<string, unknown> | undefined;
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        parsed = undefined;
      }
      if (res.ok && parsed && typeof parsed.data === 'object' && parsed.data !== null) {
        return parsed.data as Record<string, unknown>;
      }
      if (parsed && typeof parsed.error_code === 'string') {
        throw new ApiFailure(
          res.status,
          parsed.error_code,
          String(parsed.message ?? ''),
          Array.isArray(parsed.errors) ? (parsed.errors as FieldError[]) : [],
          typeof parsed.request_id === 'string' ? parsed.request_id : undefined,
        );
      }
      throw new ApiFailure(
        res.status,
        `http_${res.status}`,
        `unexpected answer from ${url}: ${text.slice(0, 200) || '(empty)'}`,
        [],
      );
    },
  };
}
