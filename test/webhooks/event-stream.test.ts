// The webhook event stream behind `ticketing listen`: bearer with webhooks:write only; the ready
// message announces the secret; a paid order arrives signed with it (checked with the independent
// standardwebhooks package) and byte for byte the body an endpoint gets; another organization's
// events never arrive; Last-Event-ID resumes; ?events= filters; five streams per client; and a
// shutdown ends open streams at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { STREAMS_PER_CLIENT } from '../../src/webhooks/event-stream.ts';
import { startListeningHarness } from '../e2e/browser-helpers.ts';
import { bearer, getToken, makePartner, type Harness } from '../helpers/harness.ts';
import { Sse, type Message } from './sse-reader.ts';
import { makeShop, payFreeOrder, startWebhookHarness, type Shop } from './webhook-helpers.ts';

let h: Harness;
let api: string;
let shop: Shop;
const streams: Sse[] = [];

before(async () => {
  h = await startWebhookHarness();
  // Over a real connection: inject answers once a response ends, and a stream does not.
  api = await h.service.api.listen({ host: '127.0.0.1', port: 0 });
  shop = await makeShop(h);
});
after(async () => {
  for (const s of streams) s.close();
  await h.close();
});

function openStream(token: string | null, options: { query?: string; lastEventId?: string } = {}) {
  return fetch(`${api}/v1/webhook-events/stream${options.query ?? ''}`, {
    headers: {
      ...(token && bearer(token)),
      ...(options.lastEventId && { 'last-event-id': options.lastEventId }),
    },
  });
}

/** A stream that must open; returns it after its ready message. */
async function connect(token: string, options: { query?: string; lastEventId?: string } = {}) {
  const res = await openStream(token, options);
  assert.equal(res.status, 200);
  assert.match(String(res.headers.get('content-type')), /^text\/event-stream/);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  const sse = new Sse(res);
  streams.push(sse);
  const ready = await sse.next();
  assert.equal(ready.event, 'ready');
  return { sse, ready: ready.data as { secret: string; organization_id: string } };
}

async function jsonOf(res: Response) {
  assert.match(String(res.headers.get('content-type')), /^application\/json/);
  return (await res.json()) as { error_code: string; message: string; request_id: string };
}

function verify(secret: string, message: Message) {
  return new Webhook(secret).verify(message.data.body, message.data.headers) as {
    type: string;
    data: Record<string, unknown>;
  };
}

describe('GET /v1/webhook-events/stream', () => {
  test('no token is 401; a token without webhooks:write is 403; both in the error envelope', async () => {
    const none = await openStream(null);
    assert.equal(none.status, 401);
    assert.equal((await jsonOf(none)).error_code, 'invalid_token');
    const scoped = await openStream(await getToken(h, shop.partner, 'orders:read'));
    assert.equal(scoped.status, 403);
    assert.equal((await jsonOf(scoped)).error_code, 'insufficient_scope');
  });

  test('the ready message announces the secret; a paid order arrives signed with it', async () => {
    const { sse, ready } = await connect(shop.token);
    assert.match(ready.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(ready.organization_id, shop.partner.organizationId);

    const order = await payFreeOrder(h, shop);
    const event = await sse.next();
    assert.equal(event.event, 'order.paid');
    assert.match(event.id!, /^msg_/);
    assert.equal(event.data.id, event.id);
    assert.equal(event.data.headers['webhook-id'], event.id);
    const payload = verify(ready.secret, event);
    assert.equal(payload.type, 'order.paid');
    assert.equal(payload.data.id, order.id);
    assert.equal(payload.data.status, 'paid');
    // the body an endpoint gets: type, timestamp, data in that order
    assert.deepEqual(Object.keys(JSON.parse(event.data.body)), ['type', 'timestamp', 'data']);
    assert.equal(event.data.timestamp, JSON.parse(event.data.body).timestamp);
    // a wrong secret does not verify
    const other = (await connect(await getToken(h, await makePartner(h)))).ready.secret;
    assert.throws(() => verify(other, event));
    sse.close();
  });

  test('the secret is the same on every stream of the client, and differs between clients', async () => {
    const first = await connect(shop.token);
    const second = await connect(await getToken(h, shop.partner));
    assert.equal(first.ready.secret, second.ready.secret);
    const stranger = await connect(await getToken(h, await makePartner(h)));
    assert.notEqual(stranger.ready.secret, first.ready.secret);
    for (const s of [first, second, stranger]) s.sse.close();
  });

  test("another organization's events never arrive", async () => {
    const { sse } = await connect(shop.token);
    const otherShop = await makeShop(h);
    const theirs = await payFreeOrder(h, otherShop);
    const mine = await payFreeOrder(h, shop);
    const event = await sse.next();
    assert.equal(JSON.parse(event.data.body).data.id, mine.id);
    await new Promise((r) => setTimeout(r, 300));
    const ids = sse.drain().map((m) => JSON.parse(m.data.body).data.id);
    assert.ok(!ids.includes(theirs.id));
    sse.close();
  });

  test('Last-Event-ID (or ?after=) resumes after an event; an unknown one is 404', async () => {
    const { sse } = await connect(shop.token);
    await payFreeOrder(h, shop);
    const first = await sse.next();
    sse.close();
    const missed = await payFreeOrder(h, shop);

    for (const resume of [{ lastEventId: first.id! }, { query: `?after=${first.id!}` }]) {
      const again = await connect(shop.token, resume);
      const event = await again.sse.next();
      assert.equal(JSON.parse(event.data.body).data.id, missed.id);
      again.sse.close();
    }
    const stranger = await getToken(h, await makePartner(h));
    const foreign = await openStream(stranger, { lastEventId: first.id! });
    assert.equal(foreign.status, 404);
    assert.equal((await jsonOf(foreign)).error_code, 'not_found');
    const bad = await openStream(shop.token, { query: '?after=nope' });
    assert.equal(bad.status, 400);
    assert.equal((await jsonOf(bad)).error_code, 'validation_failed');
  });

  test('?events= keeps only those types; POST /v1/webhook-events/test writes a test event', async () => {
    const { sse, ready } = await connect(shop.token, { query: '?events=test' });
    await payFreeOrder(h, shop);
    const written = await h.service.api.inject({
      method: 'POST',
      url: '/v1/webhook-events/test',
      headers: bearer(shop.token),
    });
    assert.equal(written.statusCode, 202, written.body);
    const event = await sse.next();
    assert.equal(event.event, 'test');
    assert.equal(event.id, written.json().data.id);
    assert.equal(verify(ready.secret, event).type, 'test');
    assert.deepEqual(sse.drain(), []);
    sse.close();

    const bad = await openStream(shop.token, { query: '?events=order.paid,nope' });
    assert.equal(bad.status, 400);
    assert.match((await jsonOf(bad)).message, /nope/);
  });

  test(`at most ${STREAMS_PER_CLIENT} streams at once per client; the next is 429`, async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const open = [];
    for (let i = 0; i < STREAMS_PER_CLIENT; i++) open.push(await connect(token));
    const refused = await openStream(token);
    assert.equal(refused.status, 429);
    const body = await jsonOf(refused);
    assert.equal(body.error_code, 'rate_limited');
    assert.match(body.request_id, /^req_/);
    open[0]!.sse.close();
    await open[0]!.sse.ended;
    await new Promise((r) => setTimeout(r, 50));
    const again = await connect(token);
    for (const s of [...open.slice(1), again]) s.sse.close();
  });
});

describe('shutdown', () => {
  test('closing the service ends an open stream at once', async () => {
    const { h: listening, api } = await startListeningHarness();
    const partner = await makePartner(listening);
    const token = await getToken(listening, partner);
    const res = await fetch(`${api}/v1/webhook-events/stream`, { headers: bearer(token) });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /^event: ready\n/);
    const started = Date.now();
    await listening.close();
    assert.ok(Date.now() - started < 5000, `close took ${Date.now() - started} ms`);
    for (;;) if ((await reader.read()).done) break;
  });
});
