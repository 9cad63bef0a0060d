// An event stream lives no longer than its credential
// (docs/decisions/event-streams-follow-credentials.md): revoking the client, removing
// webhooks:write from it or the token's expiry ends an open stream within 5 s, with a
// last `end` message saying why, and no event written after the change is sent on it. And one
// organization holds at most its share of the process's streams while others still get theirs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { STREAMS_PER_CLIENT } from '../../src/webhooks/event-stream.ts';
import { admin, createClientFor, dataOf, partnerOf } from '../admin/admin-helpers.ts';
import { getToken, makePartner, type Harness, type TestPartner } from '../helpers/harness.ts';
import { Sse, type Message } from './sse-reader.ts';
import { makeShop, payFreeOrder, startWebhookHarness, type Shop } from './webhook-helpers.ts';

/** The contract: a stream ends within this long of its credential's change. */
const CONTRACT_MS = 5_000;
/** Small limits, so that a test reaches them with a handful of streams. */
const PER_ORGANIZATION = 3;
const PER_PROCESS = 5;

let h: Harness;
let api: string;
const streams: Sse[] = [];

before(async () => {
  h = await startWebhookHarness({
    EVENT_STREAMS_PER_ORGANIZATION: String(PER_ORGANIZATION),
    EVENT_STREAMS_PER_PROCESS: String(PER_PROCESS),
  });
  // Over a real connection: inject answers once a response ends, and a stream does not.
  api = await h.service.api.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  for (const s of streams) s.close();
  await h.close();
});

function openStream(token: string) {
  return fetch(`${api}/v1/webhook-events/stream`, { headers: { authorization: `Bearer ${token}` } });
}

/** A stream that must open; returned after its ready message. */
async function connect(token: string): Promise<Sse> {
  const res = await openStream(token);
  if (res.status !== 200) assert.fail(`the stream did not open: ${res.status} ${await res.text()}`);
  const sse = new Sse(res);
  streams.push(sse);
  assert.equal((await sse.next()).event, 'ready');
  return sse;
}

/** Closes streams and waits until the service has seen them go, so their slots are free. */
async function closeAll(list: Sse[]) {
  for (const s of list) s.close();
  await Promise.all(list.map((s) => s.ended));
  await new Promise((r) => setTimeout(r, 200));
}

/** Waits for the response to end, failing once `deadline` (Date.now() ms) has passed. */
async function endsBy(sse: Sse, deadline: number, what: string) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()));
  });
  const outcome = await Promise.race([sse.ended.then(() => 'ended' as const), late]);
  clearTimeout(timer);
  assert.equal(outcome, 'ended', `the stream was still open ${CONTRACT_MS / 1000} s after ${what}`);
}

function orderIdOf(message: Message): string | undefined {
  return message.event === 'order.paid' ? JSON.parse(message.data.body).data.id : undefined;
}

/** A shop (its token makes the orders) and a second client of its organization that listens. */
async function shopWithListener(): Promise<{ shop: Shop; listener: TestPartner }> {
  const shop = await makeShop(h);
  const client = await createClientFor(h, shop.partner.organizationId, {
    name: 'Laptop listener',
    scopes: ['webhooks:write', 'orders:read'],
  });
  return { shop, listener: partnerOf(client) };
}

async function errorOf(res: Response, status: number, code: string) {
  assert.equal(res.status, status);
  const body = (await res.json()) as { error_code: string; message: string; request_id: string };
  assert.equal(body.error_code, code);
  assert.match(body.request_id, /^req_/);
  return { body, headers: res.headers };
}

describe('an open stream follows its credential', () => {
  test('revoking the client ends the stream within 5 s; an order paid after it is never sent', async () => {
    const { shop, listener } = await shopWithListener();
    const sse = await connect(await getToken(h, listener));

    // While the credential holds, the stream goes on past its periodic checks.
    await new Promise((r) => setTimeout(r, 2_500));
    const before = await payFreeOrder(h, shop);
    assert.equal(orderIdOf(await sse.next()), before.id);

    dataOf(await admin(h, { method: 'POST', url: `/clients/${listener.clientId}/revoke` }), 200);
    const deadline = Date.now() + CONTRACT_MS;
    const paidAfter = await payFreeOrder(h, shop);
    await endsBy(sse, deadline, 'the revocation');

    const messages = sse.drain();
    assert.deepEqual(
      messages.filter((m) => m.event === 'order.paid').map(orderIdOf),
      [],
      `nothing sent after the revocation (${paidAfter.id} was paid after it)`,
    );
    assert.deepEqual(
      messages.map((m) => m.event),
      ['end'],
    );
    assert.equal(messages[0]!.data.reason, 'client_revoked');
    assert.match(messages[0]!.data.message, /revoked/);
    assert.equal(messages[0]!.id, undefined, 'Last-Event-ID stays the last event sent');
  });

  test('removing webhooks:write (PATCH through the admin API) ends the stream within 5 s; nothing after it is sent', async () => {
    const { shop, listener } = await shopWithListener();
    const sse = await connect(await getToken(h, listener));
    const before = await payFreeOrder(h, shop);
    assert.equal(orderIdOf(await sse.next()), before.id);

    const patched = await admin(h, {
      method: 'PATCH',
      url: `/clients/${listener.clientId}`,
      body: { scopes: ['orders:read'] },
    });
    assert.deepEqual(dataOf(patched, 200).scopes, ['orders:read']);
    const deadline = Date.now() + CONTRACT_MS;
    const paidAfter = await payFreeOrder(h, shop);
    await endsBy(sse, deadline, 'the scope was removed');

    const messages = sse.drain();
    assert.ok(!messages.some((m) => orderIdOf(m) === paidAfter.id), 'the order paid after it is not sent');
    assert.deepEqual(
      messages.map((m) => m.event),
      ['end'],
    );
    assert.equal(messages[0]!.data.reason, 'scope_removed');
    assert.match(messages[0]!.data.message, /webhooks:write/);
  });

  test('an idle stream ends within 5 s of the revocation too: it looks without an event to send', async () => {
    const { listener } = await shopWithListener();
    const sse = await connect(await getToken(h, listener));
    dataOf(await admin(h, { method: 'POST', url: `/clients/${listener.clientId}/revoke` }), 200);
    await endsBy(sse, Date.now() + CONTRACT_MS, 'the revocation');
    assert.deepEqual(
      sse.drain().map((m) => [m.event, m.data.reason]),
      [['end', 'client_revoked']],
    );
  });

  test("the stream ends within 5 s of its token's expiry, idle or not, and sends nothing after it", async () => {
    const { shop, listener } = await shopWithListener();
    const idle = await connect(await getToken(h, listener));
    const busy = await connect(await getToken(h, listener));
    const hours = 2 * 3600_000;
    h.clock.advance(hours); // past the token's hour
    try {
      const deadline = Date.now() + CONTRACT_MS;
      await endsBy(idle, deadline, 'the token expired');
      assert.deepEqual(
        idle.drain().map((m) => [m.event, m.data.reason]),
        [['end', 'token_expired']],
      );
      // The other stream may still be between two looks: an order paid now is not sent on it.
      const paidAfter = await payFreeOrder(h, { ...shop, token: await getToken(h, shop.partner) });
      await endsBy(busy, deadline, 'the token expired');
      const messages = busy.drain();
      assert.ok(!messages.some((m) => orderIdOf(m) === paidAfter.id), 'nothing sent after the expiry');
      assert.deepEqual(
        messages.map((m) => m.event),
        ['end'],
      );
      assert.equal(messages[0]!.data.reason, 'token_expired');
      assert.match(messages[0]!.data.message, /Last-Event-ID/);
    } finally {
      h.clock.advance(-hours);
    }
  });
});

describe("the process's streams are shared between organizations", () => {
  test(`one organization holds at most ${PER_ORGANIZATION} streams while another still gets its own`, async () => {
    // Two clients of one organization, so that it is the organization's share that refuses,
    // not the client's limit of STREAMS_PER_CLIENT.
    assert.ok(PER_ORGANIZATION < STREAMS_PER_CLIENT);
    const first = await makePartner(h);
    const second = partnerOf(await createClientFor(h, first.organizationId, { scopes: ['webhooks:write'] }));
    const tokens = [await getToken(h, first), await getToken(h, second)];
    const held: Sse[] = [];
    for (let i = 0; i < PER_ORGANIZATION; i++) held.push(await connect(tokens[i % 2]!));

    for (const token of tokens) {
      const { body, headers } = await errorOf(await openStream(token), 429, 'rate_limited');
      assert.match(body.message, new RegExp(`organization already has ${PER_ORGANIZATION} event streams`));
      assert.equal(headers.get('retry-after'), '30');
    }

    // Another organization is not held up by the first one's share.
    const other = await makePartner(h);
    const otherToken = await getToken(h, other);
    const theirs = [await connect(otherToken), await connect(otherToken)];

    // The process's own limit still holds: with every slot taken, a third organization waits.
    assert.equal(held.length + theirs.length, PER_PROCESS);
    const third = await getToken(h, await makePartner(h));
    const { headers } = await errorOf(await openStream(third), 503, 'service_unavailable');
    assert.equal(headers.get('retry-after'), '30');

    // A stream closed gives the organization its place back.
    await closeAll([held[0]!, theirs[1]!]);
    held[0] = await connect(tokens[0]!);
    await closeAll([...held, theirs[0]!]);
  });
});
