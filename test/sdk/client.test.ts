// The SDK's TicketingClient against the real service on loopback: the token cache (reuse, single
// flight, refresh once after a refused token), retries with one Idempotency-Key, pagination, and
// typed errors.
import { after, before, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { TicketingClient, TicketingError } from '../../packages/sdk/src/index.ts';
import { checkoutSessions } from '../../src/checkout/checkout.schema.ts';
import { makeEvent, makePartner, type Harness, type TestPartner } from '../helpers/harness.ts';
import { recordingFetch, startListeningService, type Plan } from './sdk-helpers.ts';

const TOKEN = '/v1/oauth/token';
const SESSIONS = '/v1/checkout-sessions';
const HOUR = 3600_000;

let h: Harness;
let api: string;
let partner: TestPartner;
let eventId: string;

before(async () => {
  ({ h, api } = await startListeningService());
  partner = await makePartner(h);
  eventId = (await makeEvent(h, partner)).id;
});
after(() => h?.close());

function clientWith(plan?: Parameters<typeof recordingFetch>[0], maxRetries?: number) {
  const recorder = recordingFetch(plan);
  const client = new TicketingClient({
    clientId: partner.clientId,
    clientSecret: partner.clientSecret,
    baseUrl: api,
    fetch: recorder.fetch,
    ...(maxRetries !== undefined && { maxRetries }),
  });
  return { client, ...recorder };
}

const redirectSession = () => ({
  event_id: eventId,
  on_success_url: 'https://shop.example.org/thanks',
  on_cancel_url: 'https://shop.example.org/',
});

async function sessionsOfEvent(): Promise<number> {
  const rows = await h.service.ctx.database.db
    .select({ id: checkoutSessions.id })
    .from(checkoutSessions)
    .where(eq(checkoutSessions.eventId, eventId));
  return rows.length;
}

async function caught(promise: Promise<unknown>): Promise<TicketingError> {
  const error = await promise.then(
    () => assert.fail('expected the call to fail'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof TicketingError, `a TicketingError, got ${String(error)}`);
  return error;
}

describe('token cache', () => {
  test('one token request serves concurrent calls and later ones', async () => {
    const { client, to } = clientWith();
    const pages = await Promise.all([1, 2, 3, 4, 5].map(() => client.events.page({ limit: 1 })));
    assert.ok(pages.every((p) => p.events.length === 1));
    await client.events.get(eventId);
    assert.equal(to(TOKEN).length, 1, 'single flight, then reuse');
    const tokenRequest = to(TOKEN)[0]!;
    assert.match(tokenRequest.headers.get('authorization') ?? '', /^Basic /);
    assert.equal(tokenRequest.body, 'grant_type=client_credentials');
    const bearers = new Set(to('/v1/events').map((s) => s.headers.get('authorization')));
    assert.equal(bearers.size, 1);
  });

  test('a token the service refuses (expired) is replaced and the call repeated once', async () => {
    const { client, to } = clientWith();
    await client.events.page({ limit: 1 });
    h.clock.advance(HOUR + 60_000); // the service's clock: the cached token has expired there
    try {
      const event = await client.events.get(eventId);
      assert.equal(event.event_id, eventId);
    } finally {
      h.clock.advance(-(HOUR + 60_000));
    }
    assert.equal(to(TOKEN).length, 2);
    const reads = to(`/v1/events/${eventId}`);
    assert.deepEqual(
      reads.map((s) => s.outcome),
      [401, 200],
    );
    assert.notEqual(reads[0]!.headers.get('authorization'), reads[1]!.headers.get('authorization'));
  });

  test('a second refusal is not retried again: the invalid_token error is thrown', async () => {
    // Every events call goes out with a token the service never issued.
    const { client, to } = clientWith((sent) => {
      if (sent.path.startsWith('/v1/events')) sent.headers.set('authorization', 'Bearer pat_never_issued');
      return { kind: 'forward' };
    });
    const error = await caught(client.events.page());
    assert.equal(error.status, 401);
    assert.equal(error.errorCode, 'invalid_token');
    assert.equal(to('/v1/events').length, 2, 'the call and one retry');
    assert.equal(to(TOKEN).length, 2, 'the first token and one replacement');
  });
});

/**
 * Runs `body` with the SDK's waits between attempts (its sleep in retry.ts) taken at once, and
 * returns how long each asked to wait: Retry-After and backoff are checked without time passing.
 * Every other timer of the process runs as usual.
 */
async function withSdkWaits<T>(body: () => Promise<T>): Promise<{ result: T; waits: number[] }> {
  const waits: number[] = [];
  const real = globalThis.setTimeout;
  const spy = mock.method(globalThis, 'setTimeout', ((callback: () => void, ms?: number) => {
    if (!new Error().stack?.includes('/packages/sdk/src/retry.ts')) return real(callback, ms);
    waits.push(ms ?? 0);
    return real(callback, 0);
  }) as typeof setTimeout);
  try {
    return { result: await body(), waits };
  } finally {
    spy.mock.restore();
  }
}

describe('retries', () => {
  async function createThrough(plan: (attempt: number) => Plan) {
    const before = await sessionsOfEvent();
    const recorder = clientWith((sent) =>
      sent.path === SESSIONS ? plan(recorder.to(SESSIONS).length) : { kind: 'forward' },
    );
    const { result: session, waits } = await withSdkWaits(() =>
      recorder.client.checkoutSessions.create(redirectSession()),
    );
    const attempts = recorder.to(SESSIONS);
    const keys = new Set(attempts.map((s) => s.headers.get('idempotency-key')));
    assert.equal(keys.size, 1, 'every attempt carries the same Idempotency-Key');
    assert.match([...keys][0]!, /^[0-9a-f-]{36}$/);
    assert.equal((await sessionsOfEvent()) - before, 1, 'exactly one session created');
    assert.equal(waits.length, attempts.length - 1, 'one wait before each retry');
    return { session, attempts, waits };
  }

  test('an answer lost to a network error: the retry replays the created session', async () => {
    const { session, attempts } = await createThrough((n) =>
      n === 0 ? { kind: 'lose' } : { kind: 'forward' },
    );
    assert.deepEqual(
      attempts.map((s) => s.outcome),
      ['network', 201],
    );
    assert.match(session.id, /^cs_/);
  });

  test('a connection refused, then 503 with Retry-After: waits, then succeeds', async () => {
    const { attempts, waits } = await createThrough((n) =>
      n === 0
        ? { kind: 'refuse' }
        : n === 1
          ? { kind: 'answer', status: 503, headers: { 'retry-after': '1' }, body: { error_code: 'x' } }
          : { kind: 'forward' },
    );
    assert.deepEqual(
      attempts.map((s) => s.outcome),
      ['network', 503, 201],
    );
    // The first retry backs off (half the 500 ms step plus a random part of the other half); the
    // second waits exactly what Retry-After said.
    assert.ok(waits[0]! >= 250 && waits[0]! <= 500, `backoff of ${waits[0]} ms`);
    assert.equal(waits[1], 1000, 'waited for Retry-After');
  });

  test('429 with an HTTP-date Retry-After is retried', async () => {
    const at = new Date(Date.now() + 5000).toUTCString();
    const { attempts, waits } = await createThrough((n) =>
      n === 0 ? { kind: 'answer', status: 429, headers: { 'retry-after': at } } : { kind: 'forward' },
    );
    assert.deepEqual(
      attempts.map((s) => s.outcome),
      [429, 201],
    );
    // Until the date: at most its 5 s (an HTTP date has whole seconds), more than nothing.
    assert.ok(waits[0]! > 0 && waits[0]! <= 5000, `waited ${waits[0]} ms for the date`);
  });

  test('409 idempotency_key_in_use (the same call still running) is retried with the same key', async () => {
    const inUse = { error_code: 'idempotency_key_in_use', message: 'still running' };
    const { attempts } = await createThrough((n) =>
      n === 0
        ? { kind: 'answer', status: 409, headers: { 'retry-after': '0' }, body: inUse }
        : { kind: 'forward' },
    );
    assert.deepEqual(
      attempts.map((s) => s.outcome),
      [409, 201],
    );
  });

  test('at most maxRetries retries, then the last error', async () => {
    const { client, to } = clientWith(
      (sent) =>
        sent.path === SESSIONS
          ? {
              kind: 'answer',
              status: 502,
              headers: { 'retry-after': '0' },
              body: { error_code: 'bad_gateway' },
            }
          : { kind: 'forward' },
      1,
    );
    const error = await caught(client.checkoutSessions.create(redirectSession()));
    assert.equal(error.status, 502);
    assert.equal(error.errorCode, 'bad_gateway');
    assert.equal(to(SESSIONS).length, 2);
  });

  test('validation_failed (this API answers it 400) is not retried and carries the field errors', async () => {
    const { client, to } = clientWith();
    const error = await caught(client.checkoutSessions.create({ event_id: eventId, ui_mode: 'embedded' }));
    assert.equal(error.status, 400);
    assert.equal(error.errorCode, 'validation_failed');
    assert.ok(
      error.errors.some((e) => e.field === 'embed_origin'),
      JSON.stringify(error.errors),
    );
    assert.match(error.requestId ?? '', /\S/);
    assert.equal(to(SESSIONS).length, 1);
  });

  test('a given Idempotency-Key is sent as is, and reusing it replays the first session', async () => {
    const { client, to } = clientWith();
    const key = `order-42-${Date.now()}`;
    const first = await client.checkoutSessions.create(redirectSession(), { idempotencyKey: key });
    const again = await client.checkoutSessions.create(redirectSession(), { idempotencyKey: key });
    assert.equal(again.id, first.id);
    assert.deepEqual(
      to(SESSIONS).map((s) => s.headers.get('idempotency-key')),
      [key, key],
    );
  });

  test('a 422 (the same key with another body) is not retried', async () => {
    const { client, to } = clientWith();
    const key = `reused-${Date.now()}`;
    await client.checkoutSessions.create(redirectSession(), { idempotencyKey: key });
    const other = { ...redirectSession(), client_reference_id: 'another-cart' };
    const error = await caught(client.checkoutSessions.create(other, { idempotencyKey: key }));
    assert.equal(error.status, 422);
    assert.equal(error.errorCode, 'idempotency_key_reused');
    assert.ok(error.requestId);
    assert.equal(to(SESSIONS).length, 2, 'one attempt each');
  });
});

describe('resources', () => {
  test('events.list walks every page; events.page returns one with its cursor', async () => {
    const own = await makePartner(h);
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await makeEvent(h, own, { name: `Run ${i}` })).id);
    const recorder = recordingFetch();
    const client = new TicketingClient({
      clientId: own.clientId,
      clientSecret: own.clientSecret,
      baseUrl: `${api}/v1/`,
      fetch: recorder.fetch,
    });
    const seen: string[] = [];
    for await (const event of client.events.list({ limit: 2 })) seen.push(event.event_id);
    assert.deepEqual([...seen].sort(), [...made].sort());
    assert.equal(new Set(seen).size, 5, 'no event twice');
    assert.equal(recorder.to('/v1/events').length, 3, 'pages of 2, 2 and 1');
    const first = await client.events.page({ limit: 2 });
    assert.equal(first.has_more, true);
    const second = await client.events.page({ limit: 2, cursor: first.next_cursor! });
    assert.deepEqual(
      [...first.events, ...second.events].map((e) => e.event_id),
      seen.slice(0, 4),
    );
  });

  test('a 404 is a TicketingError with the request id of the answer', async () => {
    const { client, to } = clientWith();
    const error = await caught(client.events.get('evt_doesNotExist0000000000'));
    assert.equal(error.status, 404);
    assert.equal(error.errorCode, 'not_found');
    assert.ok(error.requestId);
    assert.equal(to('/v1/events/evt_doesNotExist0000000000').length, 1, '404 is not retried');
    assert.ok(error.message.length > 0);
  });

  test('checkout session read and orders: create, get, list', async () => {
    const { client } = clientWith();
    const created = await client.checkoutSessions.create(redirectSession());
    const read = await client.checkoutSessions.get(created.id);
    assert.equal(read.id, created.id);
    assert.equal(read.status, 'open');
    const event = await client.events.get(eventId);
    const free = event.ticket_types.find((t) => t.price_minor === 0)!;
    const order = await client.orders.create({
      event_id: eventId,
      items: [{ ticket_type_id: free.ticket_type_id, participant_name: 'Ann' }],
      buyer: { name: 'Ann', email: 'ann@example.org', phone: '0772123456' },
    });
    assert.equal(order.status, 'paid');
    assert.equal((await client.orders.get(order.id)).order_code, order.order_code);
    const listed = [];
    for await (const o of client.orders.list({ event_id: eventId, limit: 1 })) listed.push(o.id);
    assert.ok(listed.includes(order.id));
  });

  test('orders.refund sends the refund; what cannot be refunded is a 422 refund_not_possible, not retried', async () => {
    const { client, sent } = clientWith();
    const event = await client.events.get(eventId);
    const free = event.ticket_types.find((t) => t.price_minor === 0)!;
    const order = await client.orders.create({
      event_id: eventId,
      items: [{ ticket_type_id: free.ticket_type_id, participant_name: 'Ann' }],
      buyer: { name: 'Ann', email: 'ann@example.org', phone: '0772123456' },
    });
    const before = sent.length;
    const error = await caught(client.orders.refund(order.id, { reason: 'Changed plans' }));
    assert.equal(error.status, 422);
    assert.equal(error.errorCode, 'refund_not_possible');
    assert.match(error.message, /free/);
    const refunds = sent.slice(before).filter((c) => c.path === `/v1/orders/${order.id}/refunds`);
    assert.equal(refunds.length, 1);
    assert.equal(refunds[0]!.method, 'POST');
    assert.ok(refunds[0]!.headers.get('idempotency-key'));
    assert.deepEqual(JSON.parse(refunds[0]!.body!), { reason: 'Changed plans' });
  });
});
