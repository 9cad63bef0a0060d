// The CLI's partner-API side, used by `listen` and `trigger` (every other command is an admin
// call): the partner's own client credentials, tokens, plain calls, the event stream and its
// server-sent events. Kept apart from admin-client.ts so the two credentials never mix.
import { readFileSync } from 'node:fs';
import { ApiFailure, ConfigFailure, NetworkFailure, type FieldError } from './admin-client.ts';
import { DEFAULT_API_URL, demoFileOf } from './cli-defaults.ts';
import { UsageError } from './command.ts';

export interface PartnerCredentials {
  clientId: string;
  clientSecret: string;
  apiUrl: string;
}

/** What DATA_DIR/demo.json may give: the demo client, written on the demo's first start. */
function demoFile(env: NodeJS.ProcessEnv): { path: string; values: Record<string, unknown> } {
  const path = demoFileOf(env);
  try {
    return { path, values: JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown> };
  } catch {
    return { path, values: {} };
  }
}

/** Flags first, then TICKETING_CLIENT_ID/_SECRET and API_URL, then demo.json, then the default URL. */
function resolvePartnerCredentials(
  env: NodeJS.ProcessEnv,
  flags: { clientId?: string; clientSecret?: string; apiUrl?: string },
): PartnerCredentials {
  const demo = demoFile(env);
  const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);
  const clientId = flags.clientId ?? text(env.TICKETING_CLIENT_ID) ?? text(demo.values.client_id);
  const clientSecret =
    flags.clientSecret ?? text(env.TICKETING_CLIENT_SECRET) ?? text(demo.values.client_secret);
  if (!clientId || !clientSecret) {
    throw new ConfigFailure(
      `no API client: give --client-id and --client-secret, or set TICKETING_CLIENT_ID and TICKETING_CLIENT_SECRET (in development, ${demo.path} holds the demo client's)`,
    );
  }
  const raw = flags.apiUrl ?? text(env.API_URL) ?? text(demo.values.api_url) ?? DEFAULT_API_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigFailure(`the API URL must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigFailure(`the API URL must use http or https, got "${raw}"`);
  }
  return { clientId, clientSecret, apiUrl: url.origin };
}

function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/** The error envelope (or OAuth error) of a refused request, as an ApiFailure. */
/** A partner command's terminal (listen, trigger). */
export interface PartnerIo {
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The flags every partner command takes, for its parseArgs options. */
export const PARTNER_FLAGS = {
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  'api-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

interface CredentialFlags {
  'client-id'?: string | undefined;
  'client-secret'?: string | undefined;
  'api-url'?: string | undefined;
}

/**
 * A partner command's options and credentials, or its exit code when it ends here: 0 after
 * printing the usage for --help (`parse` answers null), 2 for a usage or configuration error.
 */
export function startPartnerCommand<T extends CredentialFlags>(
  parse: () => T | null,
  usage: string,
  io: PartnerIo,
): { options: T; credentials: PartnerCredentials } | number {
  try {
    const options = parse();
    if (!options) {
      io.stdout(`Usage: ticketing ${usage}\n`);
      return 0;
    }
    const credentials = resolvePartnerCredentials(io.env, {
      clientId: options['client-id'],
      clientSecret: options['client-secret'],
      apiUrl: options['api-url'],
    });
    return { options, credentials };
  } catch (error) {
    const isUsage =
      error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    if (!isUsage && !(error instanceof ConfigFailure)) throw error;
    io.stderr(`error: ${(error as Error).message}\n${isUsage ? `Usage: ticketing ${usage}\n` : ''}`);
    return 2;
  }
}

export async function failureOf(res: Response): Promise<ApiFailure> {
  const text = await res.text().catch(() => '');
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = {};
  }
  const code = body.error_code ?? body.error;
  const message = body.message ?? body.error_description ?? (text.slice(0, 200) || '(empty answer)');
  return new ApiFailure(
    res.status,
    typeof code === 'string' ? code : `http_${res.status}`,
    String(message),
    Array.isArray(body.errors) ? (body.errors as FieldError[]) : [],
    typeof body.request_id === 'string' ? body.request_id : undefined,
  );
}

export interface PartnerToken {
  token: string;
  /** the scopes granted */
  scopes: string[];
}

/** A client-credentials token: for `scope` (space-separated) when given, else every scope held. */
export async function requestPartnerToken(
  credentials: PartnerCredentials,
  options: { scope?: string; signal?: AbortSignal } = {},
): Promise<PartnerToken> {
  const { scope, signal } = options;
  let res: Response;
  try {
    res = await fetch(`${credentials.apiUrl}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
        ...(scope !== undefined && { scope }),
      }).toString(),
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(30_000)]) : AbortSignal.timeout(30_000),
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new NetworkFailure(`could not reach the API at ${credentials.apiUrl}: ${networkReason(error)}`);
  }
  if (!res.ok) throw await failureOf(res);
  const body = (await res.json()) as { access_token?: unknown; scope?: unknown };
  if (typeof body.access_token !== 'string')
    throw new NetworkFailure('the token endpoint answered without an access_token');
  const scopes = typeof body.scope === 'string' ? body.scope.split(' ').filter(Boolean) : [];
  return { token: body.access_token, scopes };
}

/** A client-credentials token limited to webhooks:write. */
export async function fetchPartnerToken(
  credentials: PartnerCredentials,
  signal?: AbortSignal,
): Promise<string> {
  return (await requestPartnerToken(credentials, { scope: 'webhooks:write', ...(signal && { signal }) }))
    .token;
}

/**
 * One partner API call with a bearer token: the envelope's data, or the refusal as an ApiFailure.
 * A path may be an absolute URL of the API's origin (GET /healthz is outside /v1).
 */
export async function callPartnerApi(
  credentials: PartnerCredentials,
  request: { token?: string; method?: 'GET' | 'POST'; path: string; body?: unknown },
): Promise<Record<string, unknown>> {
  const url = `${credentials.apiUrl}${request.path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: request.method ?? 'GET',
      headers: {
        accept: 'application/json',
        ...(request.token && { authorization: `Bearer ${request.token}` }),
        ...(request.body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new NetworkFailure(`could not reach the API at ${credentials.apiUrl}: ${networkReason(error)}`);
  }
  if (!res.ok) throw await failureOf(res);
  const parsed = (await res.json().catch(() => null)) as { data?: unknown } | null;
  if (typeof parsed?.data !== 'object' || parsed.data === null) {
    throw new ApiFailure(res.status, `http_${res.status}`, `unexpected answer from ${url}`, []);
  }
  return parsed.data as Record<string, unknown>;
}

/** Opens GET /v1/webhook-events/stream; the answer as it is (the caller reads its status). */
export async function openEventStream(
  credentials: PartnerCredentials,
  options: { token: string; lastEventId?: string; events?: string; signal: AbortSignal },
): Promise<Response> {
  const query = options.events ? `?events=${encodeURIComponent(options.events)}` : '';
  try {
    return await fetch(`${credentials.apiUrl}/v1/webhook-events/stream${query}`, {
      headers: {
        authorization: `Bearer ${options.token}`,
        accept: 'text/event-stream',
        ...(options.lastEventId && { 'last-event-id': options.lastEventId }),
      },
      signal: options.signal,
    });
  } catch (error) {
    if (options.signal.aborted) throw error;
    throw new NetworkFailure(`could not reach the API at ${credentials.apiUrl}: ${networkReason(error)}`);
  }
}

export interface ServerSentEvent {
  event: string;
  id: string | undefined;
  data: string;
}

/**
 * The messages of a text/event-stream body (the WHATWG format, without `retry`): fields up to a
 * blank line, comment lines (heartbeats) skipped. `onChunk` is told of every chunk, heartbeats
 * included, so that a caller can notice a connection gone silent.
 */
export async function* serverSentEvents(
  body: ReadableStream<Uint8Array>,
  onChunk: () => void = () => {},
): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let fields: { event?: string; id?: string; data: string[] } = { data: [] };
  for await (const chunk of body) {
    onChunk();
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split(/\r\n|\r|\n/);
    buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') {
        if (fields.data.length > 0) {
          yield { event: fields.event ?? 'message', id: fields.id, data: fields.data.join('\n') };
        }
        fields = { data: [] };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'event') fields.event = value;
      else if (name === 'id') fields.id = value;
      else if (name === 'data') fields.data.push(value);
    }
  }
}
