// `ticketing listen --forward-to <url>`: the organization's webhook events, read from the API's
// event stream (the service never reaches the developer's machine), POSTed to a local URL signed
// as an endpoint would get them, one line printed per event. Reconnects after a drop, resuming
// after the last event, with a new token when the old one is refused or has expired; Ctrl-C stops
// it (exit 0). A stream the API ends because the client was revoked or lost webhooks:write stops
// it (exit 1), saying why and how to resume.
import { parseArgs } from 'node:util';
import { ApiFailure, NetworkFailure } from '../admin-client.ts';
import { UsageError } from '../command.ts';
import {
  failureOf,
  fetchPartnerToken,
  openEventStream,
  PARTNER_FLAGS,
  startPartnerCommand,
  type PartnerIo,
  serverSentEvents,
  type PartnerCredentials,
} from '../partner-client.ts';

export const LISTEN_USAGE =
  'listen --forward-to <url> [--events <type,...>] [--after <msg_...>] [--client-id <cli_...> --client-secret <sk_...>] [--api-url <url>]';

/** The server sends a comment every 15 s: this long without a byte means the connection is gone. */
const SILENCE_MS = 45_000;
const FORWARD_TIMEOUT_MS = 30_000;
const MAX_BACKOFF_MS = 30_000;
const MESSAGE_ID = /^msg_[A-Za-z0-9]{8,64}$/;

/** The API ended the stream for a reason a new token cannot mend (its `event: end`). */
class StreamEnded extends Error {
  readonly reason: string;
  /** the last event forwarded, to resume after */
  readonly lastEventId: string | undefined;
  constructor(reason: string, message: string, lastEventId: string | undefined) {
    super(message);
    this.reason = reason;
    this.lastEventId = lastEventId;
  }
}

interface StreamedEvent {
  id: string;
  type: string;
  headers: Record<string, string>;
  body: string;
}

function parseListenArgs(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    options: {
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      after: { type: 'string' },
      ...PARTNER_FLAGS,
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return null;
  if (positionals.length > 0)
    throw new UsageError(`listen takes no argument, got "${positionals.join(' ')}"`);
  const target = values['forward-to'];
  if (target === undefined) throw new UsageError('--forward-to is required');
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new UsageError(`--forward-to must be an absolute http(s) URL, got "${target}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--forward-to must use http or https, got "${target}"`);
  }
  if (values.after !== undefined && !MESSAGE_ID.test(values.after)) {
    throw new UsageError(`--after must be an event's webhook-id (msg_...), got "${values.after}"`);
  }
  return { ...values, forwardTo: url.toString() };
}

function clock(): string {
  return new Date().toTimeString().slice(0, 8);
}

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/** What the local URL made of one event: its line's outcome, and lines to print under it. */
interface Forwarded {
  outcome: string;
  notes: string[];
}

/** The first line of a reply body, at most REPLY_CHARS characters, for the line under a 4xx. */
const REPLY_CHARS = 200;

function firstLine(text: string): string {
  const line = text.trim().split(/\r\n|\r|\n/)[0] ?? '';
  return line.length > REPLY_CHARS ? `${line.slice(0, REPLY_CHARS)}...` : line;
}

/**
 * POSTs one event to the local URL. A 4xx is most often a receiver verifying with another secret
 * (an endpoint's whsec_): its reply's first line and which secret the request was signed with.
 */
async function forward(
  url: string,
  event: StreamedEvent,
  secret: string,
  stop: AbortSignal,
): Promise<Forwarded> {
  const started = performance.now();
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'PartnerTicketing-CLI/listen',
        ...event.headers,
      },
      body: event.body,
      redirect: 'manual',
      signal: AbortSignal.any([stop, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
    });
    const text = await res.text().catch(() => '');
    const outcome = `${res.status} in ${Math.round(performance.now() - started)} ms`;
    if (res.status < 400 || res.status > 499) return { outcome, notes: [] };
    const reply = firstLine(text);
    return {
      outcome,
      notes: [
        `  the receiver answered: ${reply || '(an empty body)'}`,
        `  hint: listen signs what it forwards with its own signing secret, ${secret} (printed at start), not a webhook endpoint's: the receiver must verify with that one`,
      ],
    };
  } catch (error) {
    if (stop.aborted) return { outcome: 'stopped', notes: [] };
    return { outcome: `error: ${reasonOf(error)}`, notes: [] };
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Runs `listen` until Ctrl-C (0), a refusal that retrying cannot mend (1), or a usage error (2). */
export async function runListen(args: string[], io: PartnerIo): Promise<number> {
  const started = startPartnerCommand(() => parseListenArgs(args), LISTEN_USAGE, io);
  if (typeof started === 'number') return started;
  const { options, credentials } = started;

  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await listen(credentials, options, io, stop.signal);
    io.stdout('Stopped.\n');
    return 0;
  } catch (error) {
    if (stop.signal.aborted) {
      io.stdout('Stopped.\n');
      return 0;
    }
    if (error instanceof ApiFailure) {
      const hint =
        error.errorCode === 'insufficient_scope' ? '\n  (the API client needs the webhooks:write scope)' : '';
      const fields = error.errors.map((e) => `\n  ${e.field}: ${e.message}`).join('');
      io.stderr(`error ${error.errorCode}: ${error.message}${fields}${hint}\n`);
      return 1;
    }
    if (error instanceof NetworkFailure) {
      io.stderr(`error: ${error.message}\n`);
      return 1;
    }
    if (error instanceof StreamEnded) {
      io.stderr(`${streamEndedText(error, credentials, options)}\n`);
      return 1;
    }
    throw error;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

/** Why the API ended the stream, and the command that resumes after the last event forwarded. */
function streamEndedText(
  ended: StreamEnded,
  credentials: PartnerCredentials,
  options: NonNullable<ReturnType<typeof parseListenArgs>>,
): string {
  const fixes: Record<string, string> = {
    client_revoked:
      'create an API client with the webhooks:write scope (organizer app, Developer settings), then run with its credentials',
    scope_removed: `give the API client ${credentials.clientId} the webhooks:write scope again (organizer app, Developer settings), then run`,
  };
  const fix = fixes[ended.reason] ?? 'run';
  const command = [
    'ticketing listen',
    `--forward-to ${options.forwardTo}`,
    ...(options.events ? [`--events ${options.events}`] : []),
    ...(ended.lastEventId ? [`--after ${ended.lastEventId}`] : []),
  ].join(' ');
  const since = ended.lastEventId
    ? `Events forwarded up to ${ended.lastEventId}. To receive the ones after it,`
    : 'Nothing was forwarded yet. To listen again,';
  return [
    `error: the API ended the event stream (${ended.reason}): ${ended.message}`,
    `  ${since} ${fix}:`,
    `  ${command}`,
  ].join('\n');
}

/** The connect, read, forward loop; returns when `stop` aborts. */
async function listen(
  credentials: PartnerCredentials,
  options: NonNullable<ReturnType<typeof parseListenArgs>>,
  io: PartnerIo,
  stop: AbortSignal,
): Promise<void> {
  const { forwardTo, events } = options;
  let token = await fetchPartnerToken(credentials, stop);
  let lastEventId: string | undefined = options.after;
  let announced: string | undefined;
  let backoff = 1000;
  let freshToken = true;

  while (!stop.aborted) {
    const connection = new AbortController();
    const signal = AbortSignal.any([stop, connection.signal]);
    let res: Response;
    try {
      res = await openEventStream(credentials, { token, lastEventId, events, signal });
    } catch (error) {
      if (stop.aborted) return;
      io.stderr(`${clock()}  ${(error as Error).message}; trying again in ${backoff / 1000} s\n`);
      await sleep(backoff, stop);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      continue;
    }

    if (res.status === 401 && !freshToken) {
      // expired or replaced: one new token, then a refusal is final
      await res.body?.cancel();
      token = await fetchPartnerToken(credentials, stop);
      freshToken = true;
      continue;
    }
    if (res.status === 404 && lastEventId) {
      await res.body?.cancel();
      io.stderr(`${clock()}  cannot resume after ${lastEventId} (no longer kept); continuing from now\n`);
      lastEventId = undefined;
      continue;
    }
    if (res.status === 429 || res.status >= 500) {
      const failure = await failureOf(res);
      io.stderr(
        `${clock()}  ${failure.errorCode}: ${failure.message}; trying again in ${backoff / 1000} s\n`,
      );
      await sleep(backoff, stop);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      continue;
    }
    if (!res.ok || !res.body) throw await failureOf(res);
    freshToken = false;
    backoff = 1000;

    let why = 'the stream ended';
    let expired = false;
    let silence: NodeJS.Timeout | undefined;
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(() => connection.abort(), SILENCE_MS);
    };
    try {
      for await (const message of serverSentEvents(res.body, heard)) {
        if (message.event === 'ready') {
          const ready = JSON.parse(message.data) as { secret: string; organization_id: string };
          if (announced === undefined) {
            io.stdout(
              [
                `Ready. Forwarding the webhook events of ${ready.organization_id} to ${forwardTo}`,
                `Webhook signing secret: ${ready.secret}`,
                '  (the same on every run with this API client: give it to your receiver to verify the signatures)',
                'Press Ctrl-C to stop.',
                '',
              ].join('\n'),
            );
          } else if (announced !== ready.secret) {
            io.stdout(`${clock()}  the signing secret changed: ${ready.secret}\n`);
          } else {
            io.stdout(`${clock()}  reconnected${lastEventId ? `, resuming after ${lastEventId}` : ''}\n`);
          }
          announced = ready.secret;
          continue;
        }
        if (message.event === 'end') {
          // The API's last word before it closes: the token is renewed here; anything else stops.
          let end: { reason?: unknown; message?: unknown } = {};
          try {
            end = JSON.parse(message.data) as typeof end;
          } catch {
            // no reason given: stopped all the same, as an unknown one
          }
          const reason = String(end.reason ?? 'unknown');
          if (reason !== 'token_expired') {
            throw new StreamEnded(reason, String(end.message ?? 'the stream was ended'), lastEventId);
          }
          expired = true;
          continue;
        }
        let event: StreamedEvent;
        try {
          event = JSON.parse(message.data) as StreamedEvent;
        } catch {
          io.stderr(`${clock()}  skipped a message that is not JSON (event ${message.event})\n`);
          continue;
        }
        const { outcome, notes } = await forward(forwardTo, event, announced ?? '', stop);
        if (stop.aborted) return;
        io.stdout(`${clock()}  ${event.type}  ${event.id}  -> ${outcome}\n`);
        for (const note of notes) io.stdout(`${note}\n`);
        lastEventId = event.id;
      }
    } catch (error) {
      if (stop.aborted) return;
      if (error instanceof StreamEnded) {
        connection.abort();
        throw error;
      }
      if (!connection.signal.aborted) why = reasonOf(error);
    } finally {
      clearTimeout(silence);
    }
    if (stop.aborted) return;
    if (expired) {
      // Not a drop: a new token, and at once back to where the stream stopped.
      io.stdout(`${clock()}  the access token expired; getting a new one\n`);
      token = await fetchPartnerToken(credentials, stop);
      freshToken = true;
      continue;
    }
    if (connection.signal.aborted) why = `nothing heard for ${SILENCE_MS / 1000} s`;
    io.stderr(`${clock()}  connection to the API lost (${why}); reconnecting in ${backoff / 1000} s\n`);
    await sleep(backoff, stop);
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}
