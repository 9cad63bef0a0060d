import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { insertApiClient } from '../../src/auth/clients.ts';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import {
  countIdempotencyKeys,
  countSessions,
  DAY_MS,
  expectError,
  expectFieldErrors,
  expectNothingWritten,
  postSession,
  redirectBody,
  SESSION_ID,
  SHOP,
  withKey,
} from './checkout-helpers.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

const LOCAL = 'http://localhost:5173';

function newKey(): string {
  return `key-${randomBytes(8).toString('hex')}`;
}

async function setup(options: Parameters<typeof makePartner>[1] = {}) {
  const partner = await makePartner(h, options);
  const token = await getToken(h, partner);
  const event = await makeEvent(h, partner);
  return { partner, token, eventId: event.id };
}

function withIdempotency(headers: Record<string, string>, key: string): Record<string, string> {
  return { ...headers, 'idempotency-key': key };
}

describe('Idempotency-Key on POST /v1/checkout-sessions', () => {
  test('the same key and body replays the first response byte for byte and creates one session', async () => {
    const { partner, token, eventId } = await setup();
    const key = newKey();
    const body = redirectBody(eventId, { client_reference_id: 'basket-1' });
    const first = await postSession(h, withIdempotency(bearer(token), key), body);
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined, 'the first answer is not a replay');
    assert.match(first.json().data.id, SESSION_ID);
    for (let i = 0; i < 3; i++) {
      const again = await postSession(h, withIdempotency(bearer(token), key), body);
      assert.equal(again.statusCode, 201);
      assert.equal(again.body, first.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
    }
    assert.equal(await countSessions(h, partner.clientId), 1);
  });

  test('a replay needs the same client, not the same token, and ignores the order of JSON keys', async () => {
    const { partner, token, eventId } = await setup();
    const key = newKey();
    const first = await postSession(h, withIdempotency(bearer(token), key), {
      event_id: eventId,
      on_success_url: `${SHOP}/ok`,
      on_cancel_url: `${SHOP}/back`,
      prefill: { buyer_name: 'Okello', buyer_email: 'okello@example.org' },
    });
    assert.equal(first.statusCode, 201, first.body);
    const otherToken = await getToken(h, partner);
    assert.notEqual(otherToken, token);
    const again = await postSession(h, withIdempotency(bearer(otherToken), key), {
      prefill: { buyer_email: 'okello@example.org', buyer_name: 'Okello' },
      on_cancel_url: `${SHOP}/back`,
      on_success_url: `${SHOP}/ok`,
      event_id: eventId,
    });
    assert.equal(again.statusCode, 201);
    assert.equal(again.body, first.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(await countSessions(h, partner.clientId), 1);
  });

  test('the same key with a different body is 422 idempotency_key_reused', async () => {
    const { partner, token, eventId } = await setup();
    const key = newKey();
    const first = await postSession(h, withIdempotency(bearer(token), key), redirectBody(eventId));
    assert.equal(first.statusCode, 201, first.body);
    const otherEvent = await makeEvent(h, partner);
    for (const body of [
      redirectBody(eventId, { client_reference_id: 'other' }),
      redirectBody(eventId, { on_cancel_url: `${SHOP}/elsewhere` }),
      redirectBody(otherEvent.id),
      { event_id: eventId, ui_mode: 'embedded', embed_origin: SHOP },
    ]) {
      await expectNothingWritten(h, async () => {
        const res = await postSession(h, withIdempotency(bearer(token), key), body);
        expectError(res, 422, 'idempotency_key_reused', JSON.stringify(body));
        assert.equal(res.headers['idempotent-replayed'], undefined);
      });
    }
    assert.equal(await countSessions(h, partner.clientId), 1);
    // the original request still replays
    const again = await postSession(h, withIdempotency(bearer(token), key), redirectBody(eventId));
    assert.equal(again.body, first.body);
  });

  test('keys are per client: another client may use the same key and gets its own session', async () => {
    const a = await setup();
    const key = newKey();
    const first = await postSession(h, withIdempotency(bearer(a.token), key), redirectBody(a.eventId));
    assert.equal(first.statusCode, 201, first.body);

    // a second client of the same organization, same event, same key, same body
    const { client, clientSecret } = await insertApiClient(h.service.ctx.database.db, {
      organizationId: a.partner.organizationId,
      name: 'Second client',
      scopes: [...ALL_SCOPES],
      allowedDomains: [SHOP],
      returnUrlDomains: [SHOP],
    });
    const sibling: TestPartner = {
      organizationId: a.partner.organizationId,
      clientId: client.id,
      clientSecret,
      publishableKey: client.publishableKey,
    };
    const siblingToken = await getToken(h, sibling);
    const second = await postSession(h, withIdempotency(bearer(siblingToken), key), redirectBody(a.eventId));
    assert.equal(second.statusCode, 201, second.body);
    assert.equal(second.headers['idempotent-replayed'], undefined);
    assert.notEqual(second.json().data.id, first.json().data.id);

    // a client of another organization
    const b = await setup();
    const third = await postSession(h, withIdempotency(bearer(b.token), key), redirectBody(b.eventId));
    assert.equal(third.statusCode, 201, third.body);
    assert.equal(third.headers['idempotent-replayed'], undefined);
    assert.notEqual(third.json().data.id, first.json().data.id);

    assert.equal(await countSessions(h, a.partner.clientId), 1);
    assert.equal(await countSessions(h, sibling.clientId), 1);
    assert.equal(await countSessions(h, b.partner.clientId), 1);
  });

  test('a key is remembered for 24 hours, then forgotten', async () => {
    const { partner, token, eventId } = await setup();
    const key = newKey();
    const body = redirectBody(eventId);
    const first = await postSession(h, withIdempotency(bearer(token), key), body);
    assert.equal(first.statusCode, 201, first.body);
    try {
      h.clock.advance(DAY_MS - 60_000);
      const stillToken = await getToken(h, partner);
      const replay = await postSession(h, withIdempotency(bearer(stillToken), key), body);
      assert.equal(replay.body, first.body);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      expectError(
        await postSession(
          h,
          withIdempotency(bearer(stillToken), key),
          redirectBody(eventId, { client_reference_id: 'x' }),
        ),
        422,
        'idempotency_key_reused',
      );

      h.clock.advance(60_000 + 1_000); // 24 h + 1 s after the first request
      const lateToken = await getToken(h, partner);
      const fresh = await postSession(h, withIdempotency(bearer(lateToken), key), body);
      assert.equal(fresh.statusCode, 201, fresh.body);
      assert.equal(fresh.headers['idempotent-replayed'], undefined);
      assert.notEqual(fresh.json().data.id, first.json().data.id);
      assert.equal(await countSessions(h, partner.clientId), 2);

      // the key now belongs to the new request
      const replayOfFresh = await postSession(h, withIdempotency(bearer(lateToken), key), body);
      assert.equal(replayOfFresh.body, fresh.body);
      assert.equal(replayOfFresh.headers['idempotent-replayed'], 'true');
      assert.equal(await countSessions(h, partner.clientId), 2);
    } finally {
      h.clock.offsetMs = 0;
    }
  });

  test('after 24 hours the same key may carry a different body', async () => {
    const { partner, token, eventId } = await setup();
    const key = newKey();
    const first = await postSession(h, withIdempotency(bearer(token), key), redirectBody(eventId));
    assert.equal(first.statusCode, 201, first.body);
    try {
      h.clock.advance(DAY_MS + 1_000);
      const lateToken = await getToken(h, partner);
      const res = await postSession(
        h,
        withIdempotency(bearer(lateToken), key),
        redirectBody(eventId, { client_reference_id: 'new' }),
      );
      assert.equal(res.statusCode, 201, res.body);
      assert.notEqual(res.json().data.id, first.json().data.id);
    } finally {
      h.clock.offsetMs = 0;
    }
  });

  test('a failed request stores nothing: the same key then works with a corrected body', async () => {
    const { partner, token, eventId } = await setup();
    const key = newKey();
    await expectNothingWritten(h, async () => {
      const res = await postSession(h, withIdempotency(bearer(token), key), {
        event_id: eventId,
        on_success_url: `${SHOP}/ok`,
      });
      expectFieldErrors(res, ['on_cancel_url']);
    });
    await expectNothingWritten(h, async () => {
      const res = await postSession(
        h,
        withIdempotency(bearer(token), key),
        redirectBody(eventId, { colour: 'red' }),
      );
      expectFieldErrors(res, ['colour']);
    });
    await expectNothingWritten(h, async () => {
      const res = await postSession(
        h,
        withIdempotency(bearer(token), key),
        redirectBody('evt_doesnotexist0000000000'),
      );
      expectError(res, 404, 'not_found');
    });
    const res = await postSession(h, withIdempotency(bearer(token), key), redirectBody(eventId));
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers['idempotent-replayed'], undefined);
    assert.equal(await countSessions(h, partner.clientId), 1);
  });

  test('a failure is not replayed: the same failing request fails again on its own merits', async () => {
    const { partner, token } = await setup();
    const key = newKey();
    const now = h.clock.now().getTime();
    const notYet = await makeEvent(h, partner, {
      reg_opens_at: new Date(now + 60 * 60_000).toISOString(),
      reg_closes_at: new Date(now + 2 * DAY_MS).toISOString(),
    });
    const body = redirectBody(notYet.id);
    expectError(await postSession(h, withIdempotency(bearer(token), key), body), 409, 'sale_closed');
    try {
      h.clock.advance(2 * 60 * 60_000); // registration has opened meanwhile
      const laterToken = await getToken(h, partner);
      const res = await postSession(h, withIdempotency(bearer(laterToken), key), body);
      assert.equal(res.statusCode, 201, res.body);
    } finally {
      h.clock.offsetMs = 0;
    }
  });

  test('an Idempotency-Key must be 1 to 255 printable characters without spaces', async () => {
    const { partner, token, eventId } = await setup();
    for (const [label, key] of [
      ['256 characters', 'k'.repeat(256)],
      ['a space', 'abc def'],
      ['a tab', 'abc\tdef'],
      ['empty', ''],
    ] as const) {
      await expectNothingWritten(h, async () => {
        const res = await postSession(h, withIdempotency(bearer(token), key), redirectBody(eventId));
        expectFieldErrors(res, ['Idempotency-Key'], label);
      });
    }
    const longest = 'k'.repeat(255);
    const ok = await postSession(h, withIdempotency(bearer(token), longest), redirectBody(eventId));
    assert.equal(ok.statusCode, 201, ok.body);
    const replay = await postSession(h, withIdempotency(bearer(token), longest), redirectBody(eventId));
    assert.equal(replay.body, ok.body);
    assert.equal(await countSessions(h, partner.clientId), 1);
  });

  test('works with a publishable key; the request Origin is part of the request', async () => {
    const { partner } = await setup({ allowedDomains: [SHOP, LOCAL] });
    const event = await makeEvent(h, partner);
    const key = newKey();
    const body = { event_id: event.id, ui_mode: 'embedded' };
    const first = await postSession(h, withIdempotency(withKey(partner.publishableKey, SHOP), key), body);
    assert.equal(first.statusCode, 201, first.body);
    const again = await postSession(h, withIdempotency(withKey(partner.publishableKey, SHOP), key), body);
    assert.equal(again.statusCode, 201);
    assert.equal(again.body, first.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.headers['access-control-allow-origin'], SHOP);
    assert.equal(await countSessions(h, partner.clientId), 1);
    // same key and body from another allowed page would embed elsewhere: a different request
    await expectNothingWritten(h, async () => {
      expectError(
        await postSession(h, withIdempotency(withKey(partner.publishableKey, LOCAL), key), body),
        422,
        'idempotency_key_reused',
      );
    });
  });

  test('without a key every request creates a session and nothing is remembered', async () => {
    const { partner, token, eventId } = await setup();
    const keysBefore = await countIdempotencyKeys(h);
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const res = await postSession(h, bearer(token), redirectBody(eventId));
      assert.equal(res.statusCode, 201, res.body);
      ids.add(res.json().data.id);
    }
    assert.equal(ids.size, 3);
    assert.equal(await countSessions(h, partner.clientId), 3);
    assert.equal(await countIdempotencyKeys(h), keysBefore);
  });

  test(
    'a key held by a request still running answers 409 idempotency_key_in_use, writes nothing, and does not wait',
    // Holding the key from another connection needs PostgreSQL; PGlite has one connection.
    { skip: process.env.TEST_DATABASE_URL ? false : 'needs PostgreSQL (TEST_DATABASE_URL)' },
    async () => {
      const { partner, token, eventId } = await setup();
      const key = newKey();
      const body = redirectBody(eventId);
      const database = h.service.ctx.database;
      // Another request's transaction holds the key (the claim both idempotency paths take).
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let claimed!: () => void;
      const holding = new Promise<void>((resolve) => (claimed = resolve));
      const holder = database.transaction(async (tx) => {
        await tx.execute(
          sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${partner.clientId}:${key}`}, 0))`,
        );
        claimed();
        await held;
      });
      try {
        await holding;
        await expectNothingWritten(h, async () => {
          const res = await postSession(h, withIdempotency(bearer(token), key), body);
          expectError(res, 409, 'idempotency_key_in_use');
          assert.equal(res.headers['retry-after'], '1');
        });
      } finally {
        release();
        await holder;
      }
      const res = await postSession(h, withIdempotency(bearer(token), key), body);
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.headers['idempotent-replayed'], undefined);
      assert.equal(await countSessions(h, partner.clientId), 1);
    },
  );

  test('20 concurrent requests with one key create exactly one session', async () => {
    for (let round = 0; round < 5; round++) {
      const { partner, token, eventId } = await setup();
      const key = newKey();
      const body = redirectBody(eventId, { client_reference_id: `round-${round}` });
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => postSession(h, withIdempotency(bearer(token), key), body)),
      );
      const created = answers.filter((r) => r.statusCode === 201);
      assert.ok(created.length >= 1, 'at least one request succeeds');
      const ids = new Set(created.map((r) => r.json().data.id as string));
      assert.equal(ids.size, 1, 'every 201 carries the same session');
      assert.equal(new Set(created.map((r) => r.body)).size, 1, 'every 201 has the same body');
      assert.equal(
        created.filter((r) => r.headers['idempotent-replayed'] === undefined).length,
        1,
        'one original',
      );
      for (const r of answers.filter((a) => a.statusCode !== 201)) {
        expectError(r, 409, 'idempotency_key_in_use');
        assert.ok(Number(r.headers['retry-after']) >= 1, 'Retry-After is sent');
      }
      assert.equal(await countSessions(h, partner.clientId), 1);
      // afterwards the key simply replays
      const later = await postSession(h, withIdempotency(bearer(token), key), body);
      assert.equal(later.statusCode, 201);
      assert.ok(ids.has(later.json().data.id));
    }
  });
});
