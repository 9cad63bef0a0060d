import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OffsetClock } from '../../src/platform/clock.ts';
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
  countSessions,
  DAY_MS,
  expectError,
  expectFieldErrors,
  expectNothingWritten,
  getSession,
  LOCAL,
  postSession,
  redirectBody,
  SESSION_ID,
  SHOP,
  withKey,
} from './checkout-helpers.ts';

let h: Harness;
let partner: TestPartner;
let token: string;
let eventId: string;

before(async () => {
  h = await startHarness();
  partner = await makePartner(h, {
    allowedDomains: [SHOP, LOCAL],
    returnUrlDomains: [SHOP, LOCAL, 'http://127.0.0.1:8080'],
  });
  token = await getToken(h, partner);
  eventId = (await makeEvent(h, partner)).id;
});
after(() => h.close());

const HOUR_MS = 3600 * 1000;

/** Freezes the service clock at `at` until the returned function is called. */
function pinClock(at: Date): () => void {
  h.clock.now = () => new Date(at.getTime());
  return () => {
    h.clock.now = OffsetClock.prototype.now;
  };
}

function urlOfLength(length: number, origin = SHOP): string {
  const prefix = `${origin}/`;
  return prefix + 'x'.repeat(length - prefix.length);
}

async function createOk(headers: Record<string, string>, body: unknown) {
  const res = await postSession(h, headers, body);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; url: string; expires_at: string; ui_mode: string };
}

async function read(id: string) {
  const res = await getSession(h, bearer(token), id);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as Record<string, unknown>;
}

describe('POST /v1/checkout-sessions: success', () => {
  test('creates a redirect session: 201 envelope whose data is exactly id, url, expires_at and ui_mode', async () => {
    const before = await countSessions(h, partner.clientId);
    const res = await postSession(h, bearer(token), redirectBody(eventId));
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['code', 'data', 'message']);
    assert.equal(body.code, 201);
    assert.equal(body.message, 'Checkout session created');
    assert.deepEqual(Object.keys(body.data).sort(), ['expires_at', 'id', 'ui_mode', 'url']);
    assert.match(body.data.id, SESSION_ID);
    assert.equal(body.data.url, `${h.config.siteUrl.origin}/checkout/${body.data.id}`);
    assert.equal(body.data.ui_mode, 'redirect');
    assert.equal(await countSessions(h, partner.clientId), before + 1);
    const again = await createOk(bearer(token), redirectBody(eventId));
    assert.notEqual(again.id, body.data.id, 'each session gets its own id');
  });

  test('expires_at is exactly 24 hours after created_at', async () => {
    const at = new Date(Date.now() + 12_345);
    const restore = pinClock(at);
    try {
      const created = await createOk(bearer(token), redirectBody(eventId));
      assert.equal(created.expires_at, new Date(at.getTime() + DAY_MS).toISOString());
      const session = await read(created.id);
      assert.equal(session.created_at, at.toISOString());
      assert.equal(session.expires_at, created.expires_at);
    } finally {
      restore();
    }
    // Unpinned: still created_at + exactly 24 h, and created_at is "now".
    const t0 = h.clock.now().getTime();
    const created = await createOk(bearer(token), redirectBody(eventId));
    const t1 = h.clock.now().getTime();
    const session = await read(created.id);
    const createdAt = Date.parse(session.created_at as string);
    assert.ok(createdAt >= t0 && createdAt <= t1, 'created_at is the time of the request');
    assert.equal(Date.parse(created.expires_at) - createdAt, DAY_MS);
  });

  test('accepts registered local dev return URLs, 2048-character URLs and a 256-character client_reference_id', async () => {
    const reference = 'r'.repeat(256);
    const created = await createOk(
      bearer(token),
      redirectBody(eventId, {
        on_success_url: urlOfLength(2048),
        on_cancel_url: urlOfLength(2048),
        client_reference_id: reference,
      }),
    );
    const session = await read(created.id);
    assert.equal(session.client_reference_id, reference);
    assert.equal(session.on_cancel_url, urlOfLength(2048));
    await createOk(
      bearer(token),
      redirectBody(eventId, { on_success_url: `${LOCAL}/ok`, on_cancel_url: 'http://127.0.0.1:8080/back' }),
    );
  });

  test('accepts Ugandan phone numbers in their usual forms and a plain e-mail in prefill', async () => {
    for (const phone of ['0772123456', '+256 772 123 456', '772123456', '256772123456', '0772-123-456']) {
      await createOk(
        bearer(token),
        redirectBody(eventId, {
          prefill: { buyer_name: 'Achieng Opio', buyer_email: 'achieng@example.org', buyer_phone: phone },
        }),
      );
    }
  });

  test('an embedded session with a bearer token keeps embed_origin in canonical form', async () => {
    const created = await createOk(bearer(token), {
      event_id: eventId,
      ui_mode: 'embedded',
      embed_origin: 'https://SHOP.Example.org:443',
    });
    assert.equal(created.ui_mode, 'embedded');
    const session = await read(created.id);
    assert.equal(session.embed_origin, SHOP);
    assert.equal(session.ui_mode, 'embedded');
    assert.equal(session.on_success_url, null, 'return URLs are optional for embedded sessions');
    assert.equal(session.on_cancel_url, null);
    const local = await createOk(bearer(token), {
      event_id: eventId,
      ui_mode: 'embedded',
      embed_origin: LOCAL,
    });
    assert.equal((await read(local.id)).embed_origin, LOCAL);
  });

  test('an embedded session still checks return URLs that are given', async () => {
    const created = await createOk(bearer(token), {
      event_id: eventId,
      ui_mode: 'embedded',
      embed_origin: SHOP,
      on_success_url: `${SHOP}/done/{CHECKOUT_SESSION_ID}`,
    });
    assert.equal((await read(created.id)).on_success_url, `${SHOP}/done/${created.id}`);
    await expectNothingWritten(h, async () => {
      const res = await postSession(h, bearer(token), {
        event_id: eventId,
        ui_mode: 'embedded',
        embed_origin: SHOP,
        on_cancel_url: 'https://evil.example.com/',
      });
      expectFieldErrors(res, ['on_cancel_url']);
    });
  });

  test('an unlisted event on sale takes sessions', async () => {
    const unlisted = await makeEvent(h, partner, { visibility: 'unlisted' });
    await createOk(bearer(token), redirectBody(unlisted.id));
  });

  test('registration is open from reg_opens_at included to reg_closes_at excluded', async () => {
    const at = new Date(Date.now() + 60_000);
    const opensNow = await makeEvent(h, partner, {
      reg_opens_at: at.toISOString(),
      reg_closes_at: new Date(at.getTime() + DAY_MS).toISOString(),
    });
    const closesNow = await makeEvent(h, partner, {
      reg_opens_at: new Date(at.getTime() - DAY_MS).toISOString(),
      reg_closes_at: at.toISOString(),
    });
    const restore = pinClock(at);
    try {
      await createOk(bearer(token), redirectBody(opensNow.id));
      await expectNothingWritten(h, async () => {
        expectError(await postSession(h, bearer(token), redirectBody(closesNow.id)), 409, 'sale_closed');
      });
    } finally {
      restore();
    }
  });
});

describe('POST /v1/checkout-sessions: validation_failed', () => {
  test('names the field of every broken rule, and writes nothing (table)', async () => {
    const embedded = { event_id: eventId, ui_mode: 'embedded', embed_origin: SHOP };
    const cases: Array<[string, Record<string, unknown>, string[]]> = [
      [
        'redirect without on_success_url',
        { event_id: eventId, on_cancel_url: `${SHOP}/cart` },
        ['on_success_url'],
      ],
      [
        'redirect without on_cancel_url',
        { event_id: eventId, on_success_url: `${SHOP}/ok` },
        ['on_cancel_url'],
      ],
      [
        'explicit redirect without return URLs',
        { event_id: eventId, ui_mode: 'redirect' },
        ['on_success_url', 'on_cancel_url'],
      ],
      ['empty on_success_url', redirectBody(eventId, { on_success_url: '' }), ['on_success_url']],
      ['empty on_cancel_url', redirectBody(eventId, { on_cancel_url: '' }), ['on_cancel_url']],
      ['empty on_success_url, embedded', { ...embedded, on_success_url: '' }, ['on_success_url']],
      ['empty on_cancel_url, embedded', { ...embedded, on_cancel_url: '' }, ['on_cancel_url']],
      [
        'http off localhost',
        redirectBody(eventId, { on_success_url: 'http://shop.example.org/ok' }),
        ['on_success_url'],
      ],
      [
        'http://localhost without port',
        redirectBody(eventId, { on_cancel_url: 'http://localhost/x' }),
        ['on_cancel_url'],
      ],
      [
        'unregistered local port',
        redirectBody(eventId, { on_success_url: 'http://localhost:5174/ok' }),
        ['on_success_url'],
      ],
      [
        'unregistered origin (www)',
        redirectBody(eventId, { on_success_url: 'https://www.shop.example.org/ok' }),
        ['on_success_url'],
      ],
      [
        'unregistered origin (other host)',
        redirectBody(eventId, { on_cancel_url: 'https://evil.example.com/cart' }),
        ['on_cancel_url'],
      ],
      [
        'unregistered origin (other port)',
        redirectBody(eventId, { on_success_url: 'https://shop.example.org:8443/ok' }),
        ['on_success_url'],
      ],
      ['relative URL', redirectBody(eventId, { on_success_url: '/thanks' }), ['on_success_url']],
      [
        'backslash that hides another host from RFC 3986 parsers',
        redirectBody(eventId, { on_cancel_url: `${LOCAL}\\@evil.example.com/` }),
        ['on_cancel_url'],
      ],
      [
        'credentials in URL',
        redirectBody(eventId, { on_success_url: 'https://me:pw@shop.example.org/ok' }),
        ['on_success_url'],
      ],
      [
        '2049-character on_success_url',
        redirectBody(eventId, { on_success_url: urlOfLength(2049) }),
        ['on_success_url'],
      ],
      [
        '2049-character on_cancel_url',
        redirectBody(eventId, { on_cancel_url: urlOfLength(2049) }),
        ['on_cancel_url'],
      ],
      ['embedded, bearer, no embed_origin', { event_id: eventId, ui_mode: 'embedded' }, ['embed_origin']],
      ['embed_origin with a path', { ...embedded, embed_origin: `${SHOP}/checkout` }, ['embed_origin']],
      ['embed_origin with a trailing slash', { ...embedded, embed_origin: `${SHOP}/` }, ['embed_origin']],
      ['embed_origin over http', { ...embedded, embed_origin: 'http://shop.example.org' }, ['embed_origin']],
      [
        'embed_origin localhost without port',
        { ...embedded, embed_origin: 'http://localhost' },
        ['embed_origin'],
      ],
      ['embed_origin not a URL', { ...embedded, embed_origin: 'shop.example.org' }, ['embed_origin']],
      ['embed_origin empty', { ...embedded, embed_origin: '' }, ['embed_origin']],
      [
        '257-character client_reference_id',
        redirectBody(eventId, { client_reference_id: 'r'.repeat(257) }),
        ['client_reference_id'],
      ],
      [
        'bad e-mail',
        redirectBody(eventId, { prefill: { buyer_email: 'not-an-email' } }),
        ['prefill.buyer_email'],
      ],
      [
        'e-mail without a dot',
        redirectBody(eventId, { prefill: { buyer_email: 'a@b' } }),
        ['prefill.buyer_email'],
      ],
      ['bad phone', redirectBody(eventId, { prefill: { buyer_phone: '12345' } }), ['prefill.buyer_phone']],
      [
        'foreign phone',
        redirectBody(eventId, { prefill: { buyer_phone: '+1 202 555 0100' } }),
        ['prefill.buyer_phone'],
      ],
      [
        'phone with letters',
        redirectBody(eventId, { prefill: { buyer_phone: 'call me' } }),
        ['prefill.buyer_phone'],
      ],
      ['unknown body field', redirectBody(eventId, { colour: 'red' }), ['colour']],
      ['unknown prefill field', redirectBody(eventId, { prefill: { buyer_age: 30 } }), ['prefill.buyer_age']],
      ['missing event_id', { on_success_url: `${SHOP}/ok`, on_cancel_url: `${SHOP}/cart` }, ['event_id']],
      ['event_id a number', redirectBody(eventId, { event_id: 123 }), ['event_id']],
      ['on_success_url a number', redirectBody(eventId, { on_success_url: 5 }), ['on_success_url']],
      ['on_cancel_url null', redirectBody(eventId, { on_cancel_url: null }), ['on_cancel_url']],
      [
        'client_reference_id a number',
        redirectBody(eventId, { client_reference_id: 42 }),
        ['client_reference_id'],
      ],
      ['prefill a string', redirectBody(eventId, { prefill: 'x' }), ['prefill']],
      [
        'buyer_phone a number',
        redirectBody(eventId, { prefill: { buyer_phone: 772123456 } }),
        ['prefill.buyer_phone'],
      ],
      ['ui_mode popup', redirectBody(eventId, { ui_mode: 'popup' }), ['ui_mode']],
      ['ui_mode in capitals', redirectBody(eventId, { ui_mode: 'REDIRECT' }), ['ui_mode']],
    ];
    for (const [label, body, fields] of cases) {
      await expectNothingWritten(h, async () => {
        expectFieldErrors(await postSession(h, bearer(token), body), fields, label);
      });
    }
  });

  test('refuses a lone surrogate in client_reference_id or prefill with validation_failed, writing nothing', async () => {
    for (const extra of [
      { client_reference_id: '\ud800' },
      { prefill: { buyer_email: 'ann@example.org\ud800' } },
      { prefill: { buyer_name: 'Ann \udc00' } },
    ]) {
      await expectNothingWritten(h, async () => {
        const res = await postSession(h, bearer(token), redirectBody(eventId, extra));
        assert.equal(res.statusCode, 400, res.body);
        const body = res.json();
        assert.equal(body.error_code, 'validation_failed');
        assert.equal(body.errors[0].message, 'must be valid Unicode text');
      });
    }
  });

  test('reports several broken rules at once', async () => {
    const res = await postSession(h, bearer(token), {
      event_id: eventId,
      on_success_url: 'http://shop.example.org/ok',
      on_cancel_url: '',
      client_reference_id: 'r'.repeat(257),
      prefill: { buyer_email: 'nope', buyer_phone: '1' },
    });
    expectFieldErrors(res, [
      'on_success_url',
      'on_cancel_url',
      'client_reference_id',
      'prefill.buyer_email',
      'prefill.buyer_phone',
    ]);
  });

  test('checks return URLs against the return URL domains, not the allowed domains', async () => {
    const split = await makePartner(h, {
      allowedDomains: [SHOP],
      returnUrlDomains: ['https://pay.example.org'],
    });
    const splitToken = await getToken(h, split);
    const event = await makeEvent(h, split);
    await expectNothingWritten(h, async () => {
      const res = await postSession(h, bearer(splitToken), redirectBody(event.id));
      expectFieldErrors(res, ['on_success_url', 'on_cancel_url']);
    });
    await createOk(
      bearer(splitToken),
      redirectBody(event.id, {
        on_success_url: 'https://pay.example.org/ok',
        on_cancel_url: 'https://pay.example.org/back',
      }),
    );
  });
});

describe('POST /v1/checkout-sessions: invalid_embed_origin', () => {
  test('a well-formed embed_origin outside the allowed domains is 400 invalid_embed_origin', async () => {
    for (const origin of [
      'https://www.shop.example.org',
      'https://evil.example.com',
      'https://shop.example.org:8443',
      'http://localhost:5174',
      'http://127.0.0.1:5173',
    ]) {
      await expectNothingWritten(h, async () => {
        const res = await postSession(h, bearer(token), {
          event_id: eventId,
          ui_mode: 'embedded',
          embed_origin: origin,
        });
        expectError(res, 400, 'invalid_embed_origin', origin);
      });
    }
  });

  test('checks embed_origin against the allowed domains, not the return URL domains', async () => {
    const split = await makePartner(h, {
      allowedDomains: [SHOP],
      returnUrlDomains: ['https://pay.example.org'],
    });
    const splitToken = await getToken(h, split);
    const event = await makeEvent(h, split);
    await expectNothingWritten(h, async () => {
      const res = await postSession(h, bearer(splitToken), {
        event_id: event.id,
        ui_mode: 'embedded',
        embed_origin: 'https://pay.example.org',
      });
      expectError(res, 400, 'invalid_embed_origin');
    });
    await createOk(bearer(splitToken), { event_id: event.id, ui_mode: 'embedded', embed_origin: SHOP });
  });
});

describe('POST /v1/checkout-sessions: the event', () => {
  test("is 404 not_found for an event that is not the caller's or not on sale", async () => {
    const now = h.clock.now().getTime();
    const other = await makePartner(h);
    const cases: Array<[string, string]> = [
      ['another organization', (await makeEvent(h, other)).id],
      ['draft', (await makeEvent(h, partner, { status: 'draft' })).id],
      ['closed', (await makeEvent(h, partner, { status: 'closed' })).id],
      ['cancelled', (await makeEvent(h, partner, { status: 'cancelled' })).id],
      ['private', (await makeEvent(h, partner, { visibility: 'private' })).id],
      [
        // registration still open, so only "ended" keeps it off sale
        'ended',
        (
          await makeEvent(h, partner, {
            starts_at: new Date(now - 2 * DAY_MS).toISOString(),
            ends_at: new Date(now - HOUR_MS).toISOString(),
            reg_opens_at: new Date(now - 3 * DAY_MS).toISOString(),
            reg_closes_at: new Date(now + DAY_MS).toISOString(),
          })
        ).id,
      ],
      ['unknown', 'evt_doesnotexist0000000000'],
    ];
    for (const [label, id] of cases) {
      await expectNothingWritten(h, async () => {
        expectError(await postSession(h, bearer(token), redirectBody(id)), 404, 'not_found', label);
      });
    }
  });

  test('is 409 sale_closed when registration has not opened or has closed', async () => {
    const now = h.clock.now().getTime();
    const notYet = await makeEvent(h, partner, {
      reg_opens_at: new Date(now + HOUR_MS).toISOString(),
      reg_closes_at: new Date(now + 2 * DAY_MS).toISOString(),
    });
    const over = await makeEvent(h, partner, {
      reg_opens_at: new Date(now - 2 * DAY_MS).toISOString(),
      reg_closes_at: new Date(now - 60_000).toISOString(),
    });
    for (const [label, id] of [
      ['not yet open', notYet.id],
      ['closed', over.id],
    ] as const) {
      await expectNothingWritten(h, async () => {
        expectError(await postSession(h, bearer(token), redirectBody(id)), 409, 'sale_closed', label);
      });
    }
  });

  test('is 403 payments_disabled for a paid event of an organization that cannot take payments', async () => {
    const unpaid = await makePartner(h, { paymentsEnabled: false });
    const unpaidToken = await getToken(h, unpaid);
    const paidEvent = await makeEvent(h, unpaid); // one paid and one free ticket type
    await expectNothingWritten(h, async () => {
      expectError(
        await postSession(h, bearer(unpaidToken), redirectBody(paidEvent.id)),
        403,
        'payments_disabled',
      );
    });
    const freeEvent = await makeEvent(h, unpaid, {
      ticket_types: [
        { name: '5 km', price_minor: 0, capacity: 50, distance_km: 5 },
        { name: 'Kids', price_minor: 0, capacity: 20, distance_km: 1 },
      ],
    });
    const before = await countSessions(h, unpaid.clientId);
    const res = await postSession(h, bearer(unpaidToken), redirectBody(freeEvent.id));
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(await countSessions(h, unpaid.clientId), before + 1);
  });
});

describe('POST /v1/checkout-sessions: publishable key', () => {
  test('creates an embedded session whose embed_origin is the request Origin, whatever the body says', async () => {
    const pk = await makePartner(h, { allowedDomains: [SHOP, LOCAL] });
    const event = await makeEvent(h, pk);
    const pkToken = await getToken(h, pk);
    const cases: Array<[string, Record<string, unknown>]> = [
      [SHOP, { event_id: event.id, ui_mode: 'embedded', embed_origin: 'https://elsewhere.example.net' }],
      [LOCAL, { event_id: event.id, ui_mode: 'embedded', embed_origin: SHOP }],
      [SHOP, { event_id: event.id, ui_mode: 'embedded', embed_origin: 'not an origin' }],
      [SHOP, { event_id: event.id, ui_mode: 'embedded' }],
    ];
    for (const [origin, body] of cases) {
      const res = await postSession(h, withKey(pk.publishableKey, origin), body);
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.headers['access-control-allow-origin'], origin);
      const data = res.json().data;
      assert.match(data.id, SESSION_ID);
      assert.equal(data.ui_mode, 'embedded');
      const session = await getSession(h, bearer(pkToken), data.id);
      assert.equal(session.json().data.embed_origin, origin, JSON.stringify(body));
    }
    assert.equal(await countSessions(h, pk.clientId), cases.length);
  });

  test('refuses an Origin that is not an allowed domain, or no Origin, with 403 origin_not_allowed', async () => {
    const pk = await makePartner(h, { allowedDomains: [SHOP] });
    const event = await makeEvent(h, pk);
    const body = { event_id: event.id, ui_mode: 'embedded', embed_origin: SHOP };
    for (const origin of [
      'https://www.shop.example.org',
      'https://evil.example.com',
      'http://shop.example.org',
      undefined,
    ]) {
      await expectNothingWritten(h, async () => {
        expectError(
          await postSession(h, withKey(pk.publishableKey, origin), body),
          403,
          'origin_not_allowed',
          String(origin),
        );
      });
    }
  });

  test('creates redirect sessions under the same return URL rules as a token', async () => {
    const pk = await makePartner(h, {
      allowedDomains: [SHOP],
      returnUrlDomains: ['https://pay.example.org'],
    });
    const event = await makeEvent(h, pk);
    const pkToken = await getToken(h, pk);
    const headers = withKey(pk.publishableKey, SHOP);
    const res = await postSession(h, headers, {
      event_id: event.id,
      on_success_url: 'https://pay.example.org/ok?x=1',
      on_cancel_url: 'https://pay.example.org/back',
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers['access-control-allow-origin'], SHOP);
    const data = res.json().data;
    assert.equal(data.ui_mode, 'redirect');
    const session = (await getSession(h, bearer(pkToken), data.id)).json().data;
    assert.equal(session.embed_origin, null);
    assert.equal(session.on_success_url, `https://pay.example.org/ok?x=1&session_id=${data.id}`);
    const refused: Array<[Record<string, unknown>, string[]]> = [
      [
        { event_id: event.id, on_success_url: `${SHOP}/ok`, on_cancel_url: 'https://pay.example.org/back' },
        ['on_success_url'],
      ],
      [{ event_id: event.id, on_success_url: 'https://pay.example.org/ok' }, ['on_cancel_url']],
      [
        { event_id: event.id, on_success_url: 'http://pay.example.org/ok', on_cancel_url: '' },
        ['on_success_url', 'on_cancel_url'],
      ],
    ];
    for (const [body, fields] of refused) {
      await expectNothingWritten(h, async () => {
        expectFieldErrors(await postSession(h, headers, body), fields, JSON.stringify(body));
      });
    }
  });

  test('is 403 insufficient_scope when the client lacks checkout_sessions:write', async () => {
    const pk = await makePartner(h, { scopes: ['events:read'] });
    const event = await makeEvent(h, pk);
    await expectNothingWritten(h, async () => {
      expectError(
        await postSession(h, withKey(pk.publishableKey, SHOP), { event_id: event.id, ui_mode: 'embedded' }),
        403,
        'insufficient_scope',
      );
    });
  });
});

describe('POST /v1/checkout-sessions: credentials', () => {
  test('a token without checkout_sessions:write is 403 insufficient_scope', async () => {
    const narrowToken = await getToken(h, partner, 'events:read checkout_sessions:read');
    await expectNothingWritten(h, async () => {
      expectError(
        await postSession(h, bearer(narrowToken), redirectBody(eventId)),
        403,
        'insufficient_scope',
      );
    });
    const readOnly = await makePartner(h, { scopes: ['events:read', 'checkout_sessions:read'] });
    const readOnlyToken = await getToken(h, readOnly);
    const event = await makeEvent(h, readOnly);
    await expectNothingWritten(h, async () => {
      expectError(
        await postSession(h, bearer(readOnlyToken), redirectBody(event.id)),
        403,
        'insufficient_scope',
      );
    });
  });

  test('no credential is 401 invalid_token', async () => {
    await expectNothingWritten(h, async () => {
      const res = await postSession(h, {}, redirectBody(eventId));
      expectError(res, 401, 'invalid_token');
      assert.match(String(res.headers['www-authenticate']), /^Bearer realm="service-partner"/);
    });
  });
});
