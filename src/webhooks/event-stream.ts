// The organization's webhook events as a server-sent event stream, the server side of
// `ticketing listen` (docs/decisions/listen-event-stream.md): the developer's machine opens it to
// us, so we never have to reach theirs. Each stream
// reads outbox_events itself (no in-process pub/sub), so any process may serve it; one write on
// shutdown ends every open stream so none holds the close up. A stream lives no longer than its
// credential: it reads the client again before each send and every few seconds, and ends, saying
// why, once the client is revoked, loses webhooks:write or the token expires.
import { createHmac } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { and, asc, eq, gte, inArray, notInArray } from 'drizzle-orm';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { credentialLapse, guard, type CredentialLapse, type PartnerAuth } from '../auth/index.ts';
import type { AppContext } from '../context.ts';
import {
  ApiError,
  Envelope,
  errorResponses,
  newId,
  notFound,
  send,
  validationError,
  type Host,
} from '../platform/index.ts';
import { webhookBody } from './deliver-webhook.ts';
import { webhookHeaders } from './sign-webhook.ts';
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from './webhook-endpoints.ts';
import { outboxEvents } from './webhooks.schema.ts';

const TAG = 'Webhook events';
/** open streams per API client in one process; the next one is 429 */
export const STREAMS_PER_CLIENT = 5;
const HEARTBEAT_MS = 15_000;
/**
 * How often an idle stream reads its credential again. A stream ends within 5 s of its client's
 * revocation, the loss of webhooks:write or its token's expiry
 * (docs/decisions/event-streams-follow-credentials.md); a stream with events to send reads it
 * before each send anyway.
 */
const CREDENTIAL_CHECK_MS = 2_000;
/** The last message of a stream ended by its credential: why, and what to do. */
const LAPSE_MESSAGES: Record<CredentialLapse, string> = {
  client_revoked:
    'The API client was revoked; its credentials no longer work. Stream with another API client of the organization, resuming with Last-Event-ID.',
  scope_removed:
    'The API client no longer holds webhooks:write. Once it has it again, get a new token and reconnect with Last-Event-ID to resume.',
  token_expired: 'The access token expired. Get a new token and reconnect with Last-Event-ID to resume.',
};
/**
 * How far back each poll looks again: an event's created_at is its writer's clock when the
 * transaction ran, so it may commit a little after a later one, or come from a process whose
 * clock is a little behind. Events already sent in that window are skipped by id.
 */
const LATE_COMMIT_MS = 5_000;
const BATCH = 100;
const MESSAGE_ID = /^msg_[A-Za-z0-9]{8,64}$/;

const StreamQuery = Type.Object(
  {
    after: Type.Optional(
      Type.String({
        pattern: MESSAGE_ID.source,
        description: 'Resume after this event (its webhook-id); the Last-Event-ID header does the same.',
      }),
    ),
    events: Type.Optional(
      Type.String({
        pattern: '^[a-z._]+(,[a-z._]+)*$',
        description: 'Comma-separated event types to receive (order.paid, test); all when left out.',
      }),
    ),
  },
  { additionalProperties: false },
);
const StreamHeaders = Type.Object({
  'last-event-id': Type.Optional(Type.String({ pattern: MESSAGE_ID.source })),
});
const TestEventOut = Type.Object({
  id: Type.String({ description: 'msg_...: the webhook-id the stream will carry' }),
  type: Type.Literal(TEST_EVENT_TYPE),
});

const STREAM_DESCRIPTION = [
  'Server-sent events (text/event-stream) carrying the webhook events of your organization written',
  'after the stream opened, for forwarding to a local server (`ticketing listen`). The first',
  'message is `event: ready` with data {secret, organization_id}: the whsec_ signing secret of this',
  'API client, the same on every stream it opens. Then one message per event: `event: <type>`,',
  '`id: <webhook-id>`, data {id, type, timestamp, headers, body}, where body is the exact string an',
  'endpoint gets and headers are its webhook-id, webhook-timestamp and webhook-signature, signed',
  'with that secret. A comment line every 15 s keeps the connection open. Reconnect with',
  'Last-Event-ID (or ?after=) to resume after an event. The stream ends, within 5 s and with nothing',
  'sent after, when the API client is revoked, loses webhooks:write or the access token expires;',
  'its last message is then `event: end` with data {reason, message}, reason one of client_revoked,',
  'scope_removed, token_expired. At most 5 streams at once per API client, and a share of the',
  "server's streams per organization (50 by default): past either, 429 rate_limited.",
].join(' ');

const STREAM_EXAMPLE = [
  'event: ready',
  'data: {"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw","organization_id":"org_3kT9xQ2mV8pL1nR4sW6yZ0bC"}',
  '',
  'event: test',
  'id: msg_2ZxKq9Lm4Nb7Vc1Xd8Fg3Hj5',
  'data: {"id":"msg_2ZxKq9Lm4Nb7Vc1Xd8Fg3Hj5","type":"test","timestamp":"2026-12-06T05:00:00.000Z","headers":{"webhook-id":"msg_2ZxKq9Lm4Nb7Vc1Xd8Fg3Hj5","webhook-timestamp":"1796533200","webhook-signature":"v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="},"body":"{\\"type\\":\\"test\\",\\"timestamp\\":\\"2026-12-06T05:00:00.000Z\\",\\"data\\":{\\"endpoint_id\\":null,\\"message\\":\\"A test event sent on request to your event streams.\\"}}"}',
  '',
  ': heartbeat',
  '',
  '',
].join('\n');

/** The stream signing secret of one API client: derived, so each stream it opens announces the same. */
function streamSecret(key: Buffer, clientId: string): string {
  const mac = createHmac('sha256', key).update(`webhook-event-stream:${clientId}`).digest('base64');
  return `whsec_${mac}`;
}

const STREAM_TYPES: string[] = [...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE];

/** The ?events= list, checked; undefined for every type. */
function streamTypesOr400(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const types = [...new Set(raw.split(','))];
  const unknown = types.filter((t) => !STREAM_TYPES.includes(t));
  if (unknown.length > 0) {
    throw validationError([
      {
        field: 'events',
        message: `${unknown.join(', ')}: not an event type; use any of: ${STREAM_TYPES.join(', ')}`,
      },
    ]);
  }
  return types;
}

/** One SSE message; `data` is one JSON line. */
function message(event: string, data: unknown, id?: string): string {
  return `event: ${event}\n${id ? `id: ${id}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
}

interface OpenStream {
  clientId: string;
  organizationId: string;
  end(): void;
}

/** How often a stream reads the outbox: every second, faster under a time scale but not a busy loop. */
function streamIntervalMs(timeScale: number): number {
  return Math.max(50, Math.round(1000 * timeScale));
}

export async function registerEventStreamRoutes(app: Host, ctx: AppContext) {
  const security = [{ bearer: [] as string[] }];
  const access = guard(ctx, { scope: 'webhooks:write' });
  const open = new Set<OpenStream>();
  const pollMs = streamIntervalMs(ctx.config.webhooks.timeScale);
  const { perProcess, perOrganization } = ctx.config.eventStreams;

  // Before the server stops accepting: an open stream would otherwise hold the close up forever.
  app.addHook('preClose', async () => {
    for (const stream of open) stream.end();
  });

  app.get(
    '/v1/webhook-events/stream',
    {
      ...access,
      schema: {
        tags: [TAG],
        summary: 'Stream webhook events (server-sent events)',
        description: STREAM_DESCRIPTION,
        security,
        querystring: StreamQuery,
        headers: StreamHeaders,
        response: {
          200: {
            description: 'The event stream',
            // documented as text; what the handler sends is the stream that writes it
            content: {
              'text/event-stream': {
                schema: Type.Unsafe<PassThrough>({ type: 'string', examples: [STREAM_EXAMPLE] }),
              },
            },
          },
          ...errorResponses(400, 401, 403, 404, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const types = streamTypesOr400(request.query.events);
      const resumeId = request.query.after ?? request.headers['last-event-id'];
      const floor = resumeId ? await resumePoint(ctx, auth.organizationId, resumeId) : ctx.clock.now();
      const streams = [...open];
      if (streams.filter((s) => s.clientId === auth.clientId).length >= STREAMS_PER_CLIENT) {
        throw new ApiError(
          'rate_limited',
          `At most ${STREAMS_PER_CLIENT} event streams may be open at once per API client; close one first.`,
        );
      }
      // One organization's share, so that its streams never take all of the process's from others.
      if (streams.filter((s) => s.organizationId === auth.organizationId).length >= perOrganization) {
        throw new ApiError(
          'rate_limited',
          `Your organization already has ${perOrganization} event streams open on this server, the most one organization may hold; close one, then try again.`,
          { headers: { 'Retry-After': '30' } },
        );
      }
      if (open.size >= perProcess) {
        throw new ApiError('service_unavailable', 'Too many event streams are open; try again shortly.', {
          headers: { 'Retry-After': '30' },
        });
      }

      const stream = startStream(ctx, {
        auth,
        clientId: auth.clientId,
        organizationId: auth.organizationId,
        types,
        floor,
        resumeId,
        pollMs,
        log: request.log,
        onEnd: () => open.delete(stream),
      });
      open.add(stream);
      reply.raw.on('close', stream.end);
      reply
        .header('Content-Type', 'text/event-stream; charset=utf-8')
        .header('Cache-Control', 'no-store')
        .header('X-Accel-Buffering', 'no');
      return reply.send(stream.out);
    },
  );

  app.post(
    '/v1/webhook-events/test',
    {
      ...access,
      schema: {
        tags: [TAG],
        summary: 'Send a test event to your event streams',
        description:
          'Writes a `test` event (data: {endpoint_id: null, message}) that every open event stream of your organization carries; no webhook endpoint gets it (use POST /v1/webhook-endpoints/{endpointId}/test for one).',
        security,
        querystring: Type.Object({}, { additionalProperties: false }),
        response: {
          202: Envelope(TestEventOut, 'Test event written', 202),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request, reply) => {
      const id = await writeStreamTestEvent(ctx, request);
      return send(reply, 202, 'Test event written', { id, type: TEST_EVENT_TYPE });
    },
  );
}

interface StreamOptions {
  /** the credential the stream was opened with, read again while it is open */
  auth: PartnerAuth;
  clientId: string;
  organizationId: string;
  /** event types to send; undefined for all */
  types: string[] | undefined;
  /** the oldest created_at to send: the opening time, or the event resumed after */
  floor: Date;
  resumeId: string | undefined;
  pollMs: number;
  log: FastifyBaseLogger;
  onEnd(): void;
}

/**
 * One stream: the ready message, then a poll of the outbox every pollMs with a created_at cursor
 * (the indexed (organization_id, created_at) order), a heartbeat, a watch on the credential, and
 * an end that stops them all.
 */
function startStream(ctx: AppContext, options: StreamOptions): OpenStream & { out: PassThrough } {
  const { organizationId, types, floor, resumeId, pollMs } = options;
  const out = new PassThrough();
  const secret = streamSecret(ctx.keys.token, options.clientId);
  const seen = new Map<string, number>(resumeId ? [[resumeId, floor.getTime()]] : []);
  let since = floor;
  let timer: NodeJS.Timeout | undefined;
  let watch: NodeJS.Timeout | undefined;
  let ended = false;
  const heartbeat = setInterval(() => out.write(': heartbeat\n\n'), HEARTBEAT_MS);
  out.on('close', end);

  function end() {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    clearTimeout(timer);
    clearTimeout(watch);
    out.end();
    options.onEnd();
  }

  /** Ends the stream with a last message saying why (no id: Last-Event-ID stays the last event). */
  function endFor(lapse: CredentialLapse) {
    if (ended) return;
    out.write(message('end', { reason: lapse, message: LAPSE_MESSAGES[lapse] }));
    end();
  }

  /**
   * The credential read now: true while it holds; ends the stream once it does not. A failed read
   * is no lapse, but nothing is sent on it: the next poll reads both again.
   */
  async function credentialHolds(): Promise<boolean> {
    try {
      const lapse = await credentialLapse(ctx, options.auth, 'webhooks:write');
      if (lapse) endFor(lapse);
      return !lapse && !ended;
    } catch (error) {
      options.log.warn({ err: error }, 'webhook event stream credential check failed');
      return false;
    }
  }

  // An idle stream sends nothing, so it must look too, or a revoked client's stream would stay open.
  function watchCredential() {
    watch = setTimeout(() => {
      void credentialHolds().then(() => {
        if (!ended) watchCredential();
      });
    }, CREDENTIAL_CHECK_MS);
  }

  async function poll() {
    timer = undefined;
    let full = false;
    try {
      const rows = await ctx.database.db
        .select({
          id: outboxEvents.id,
          type: outboxEvents.type,
          payload: outboxEvents.payload,
          createdAt: outboxEvents.createdAt,
        })
        .from(outboxEvents)
        .where(
          and(
            eq(outboxEvents.organizationId, organizationId),
            gte(outboxEvents.createdAt, since),
            types ? inArray(outboxEvents.type, types) : undefined,
            seen.size > 0 ? notInArray(outboxEvents.id, [...seen.keys()]) : undefined,
          ),
        )
        .orderBy(asc(outboxEvents.createdAt), asc(outboxEvents.id))
        .limit(BATCH);
      const now = ctx.clock.now();
      // Read after the events: each of them was committed before this read, so an event written
      // after a revocation (or the loss of the scope) is never sent; a failed read sends nothing.
      const holds = rows.length === 0 || (await credentialHolds());
      if (ended) return;
      if (!holds) {
        timer = setTimeout(() => void poll(), pollMs);
        return;
      }
      let newest = since.getTime();
      for (const row of rows) {
        const body = webhookBody(row.payload);
        const headers = webhookHeaders({ id: row.id, at: now, body, secrets: [secret] });
        const timestamp = row.payload.timestamp;
        out.write(message(row.type, { id: row.id, type: row.type, timestamp, headers, body }, row.id));
        seen.set(row.id, row.createdAt.getTime());
        newest = Math.max(newest, row.createdAt.getTime());
      }
      full = rows.length === BATCH;
      // After a full batch the rest are no older than its last; otherwise nothing is missing up to now.
      const next = Math.max(floor.getTime(), (full ? newest : now.getTime()) - LATE_COMMIT_MS);
      since = new Date(next);
      for (const [id, at] of seen) if (at < next) seen.delete(id);
    } catch (error) {
      // A database hiccup: the next poll tries again from the same point.
      options.log.warn({ err: error }, 'webhook event stream poll failed');
    }
    if (!ended) timer = setTimeout(() => void poll(), full ? 0 : pollMs);
  }

  out.write(message('ready', { secret, organization_id: organizationId }));
  void poll();
  watchCredential();
  return { clientId: options.clientId, organizationId, end, out };
}

/** Where a resumed stream starts: the named event of the caller's organization (404 otherwise). */
async function resumePoint(ctx: AppContext, organizationId: string, id: string): Promise<Date> {
  const [row] = await ctx.database.db
    .select({ createdAt: outboxEvents.createdAt })
    .from(outboxEvents)
    .where(and(eq(outboxEvents.id, id), eq(outboxEvents.organizationId, organizationId)));
  if (!row) throw notFound('event to resume after');
  return row.createdAt;
}

async function writeStreamTestEvent(ctx: AppContext, request: FastifyRequest): Promise<string> {
  const id = newId('msg');
  const now = ctx.clock.now();
  await ctx.database.db.insert(outboxEvents).values({
    id,
    organizationId: request.auth!.organizationId,
    type: TEST_EVENT_TYPE,
    payload: {
      type: TEST_EVENT_TYPE,
      timestamp: now.toISOString(),
      data: { endpoint_id: null, message: 'A test event sent on request to your event streams.' },
    },
    createdAt: now,
    dispatchedAt: now, // for the streams only: never fanned out to endpoints
  });
  return id;
}
