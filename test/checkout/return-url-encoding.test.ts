// Return URLs outside ASCII (accented paths, euro signs, IDN hosts): stored percent-encoded, so the
// session read, the hosted page's cancel redirect and its continue-after-paying are ASCII, with an
// X-Request-Id, in both UI modes, and never a 500.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { bearer, getToken, makeEvent, startHarness, type Harness } from '../helpers/harness.ts';
import { admin, dataOf } from '../admin/admin-helpers.ts';
import {
  createSession,
  EMBED,
  fullForm,
  getPage,
  makeRace,
  postForm,
  SHOP,
  type Page,
  type Race,
} from '../site/site-helpers.ts';

let h: Harness;
let race: Race;

before(async () => {
  h = await startHarness();
  race = await makeRace(h);
});
after(() => h.close());

/** Every header value as Node would put it on the wire: printable ASCII only. */
function expectAsciiHeaders(res: Page, label: string): void {
  for (const [name, value] of Object.entries(res.headers)) {
    for (const v of Array.isArray(value) ? value : [String(value)]) {
      assert.match(v, /^[\x20-\x7e]*$/, `${label}: header ${name} is ASCII: ${v}`);
    }
  }
  assert.match(String(res.headers['x-request-id']), /^req_/, `${label}: X-Request-Id`);
}

async function readUrls(token: string, id: string) {
  const res = await h.service.api.inject({
    method: 'GET',
    url: `/v1/checkout-sessions/${id}`,
    headers: bearer(token),
  });
  assert.equal(res.statusCode, 200, res.body);
  const data = res.json().data as { on_success_url: string | null; on_cancel_url: string | null };
  return { success: data.on_success_url, cancel: data.on_cancel_url };
}

/** Attribute text as the page writes it. */
const inAttribute = (url: string) => url.replace(/&/g, '&amp;');

const SUCCESS = `${SHOP}/caf\u00e9/merci?q=\u20ac&runner=J\u00fcrgen#r\u00e9sum\u00e9`;
const CANCEL = `${SHOP}/\u20ac/panier?q=\u20ac`;
const CANCEL_STORED = `${SHOP}/%E2%82%AC/panier?q=%E2%82%AC`;
const successStored = (id: string) =>
  `${SHOP}/caf%C3%A9/merci?q=%E2%82%AC&runner=J%C3%BCrgen&session_id=${id}#r%C3%A9sum%C3%A9`;

describe('non-ASCII return URLs, redirect mode', () => {
  test('the session read shows both URLs percent-encoded, the id added to the success URL', async () => {
    const id = await createSession(h, race, { on_success_url: SUCCESS, on_cancel_url: CANCEL });
    assert.deepEqual(await readUrls(race.token, id), { success: successStored(id), cancel: CANCEL_STORED });
  });

  test('a placeholder beside non-ASCII text is still replaced, in either form', async () => {
    for (const placeholder of ['{CHECKOUT_SESSION_ID}', '%7BCHECKOUT_SESSION_ID%7D']) {
      const id = await createSession(h, race, {
        on_success_url: `${SHOP}/caf\u00e9/${placeholder}?q=\u20ac`,
        on_cancel_url: `${SHOP}/caf\u00e9/${placeholder}`,
      });
      const urls = await readUrls(race.token, id);
      assert.equal(urls.success, `${SHOP}/caf%C3%A9/${id}?q=%E2%82%AC`, placeholder);
      // on_cancel_url is used as given: encoded, but no id put in
      assert.equal(urls.cancel, `${SHOP}/caf%C3%A9/%7BCHECKOUT_SESSION_ID%7D`, placeholder);
    }
  });

  test('cancel answers 303 with the ASCII Location and an X-Request-Id, never a 500', async () => {
    const id = await createSession(h, race, { on_success_url: SUCCESS, on_cancel_url: CANCEL });
    const page = await getPage(h, `/checkout/${id}`);
    assert.equal(page.statusCode, 200);
    expectAsciiHeaders(page, 'checkout page');
    assert.doesNotMatch(page.body, /\/\u20ac\/panier/, 'no raw non-ASCII URL in the page');
    // with an order held and its prompt out: the buyer confirms the cancel
    const held = await postForm(h, `/checkout/${id}/order`, fullForm(race, { phone: '0770000003' }));
    assert.equal(held.statusCode, 303, held.body);
    const res = await postForm(h, `/checkout/${id}/cancel`, { confirm: 'yes' });
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, CANCEL_STORED);
    expectAsciiHeaders(res, 'cancel');
  });

  test('after paying, the 303 and the page that continues to on_success_url are ASCII', async () => {
    const id = await createSession(h, race, { on_success_url: SUCCESS, on_cancel_url: CANCEL });
    const paid = await postForm(h, `/checkout/${id}/order`, fullForm(race, { ticket: 'free' }));
    assert.equal(paid.statusCode, 303, paid.body);
    expectAsciiHeaders(paid, 'order');
    const res = await getPage(h, String(paid.headers.location));
    assert.equal(res.statusCode, 200, res.body);
    expectAsciiHeaders(res, 'confirmation');
    const stored = inAttribute(successStored(id));
    assert.ok(res.body.includes(`href="${stored}"`), 'Continue link');
    assert.doesNotMatch(res.body, /caf\u00e9|\u20ac|J\u00fcrgen/, 'no raw non-ASCII URL in the page');
  });

  test('the limit of 2048 characters is on the URL as sent; the stored form may be longer', async () => {
    const at = (length: number) => `${SHOP}/` + '\u00e9'.repeat(length - SHOP.length - 1);
    const id = await createSession(h, race, { on_success_url: at(2048), on_cancel_url: at(2048) });
    const urls = await readUrls(race.token, id);
    assert.equal(urls.cancel, `${SHOP}/` + '%C3%A9'.repeat(2048 - SHOP.length - 1));
    const refused = await h.service.api.inject({
      method: 'POST',
      url: '/v1/checkout-sessions',
      headers: { ...bearer(race.token), 'content-type': 'application/json' },
      payload: JSON.stringify({ event_id: race.eventId, on_success_url: at(2049), on_cancel_url: CANCEL }),
    });
    assert.equal(refused.statusCode, 400, refused.body);
    assert.deepEqual(
      refused.json().errors.map((e: { field: string }) => e.field),
      ['on_success_url'],
    );
  });

  test('a session stored before this rule, with raw non-ASCII URLs, still redirects in ASCII', async () => {
    const id = await createSession(h, race);
    await h.service.ctx.database.rows(
      sql`UPDATE checkout_sessions SET cancel_url = ${CANCEL}, success_url = ${SUCCESS} WHERE id = ${id}`,
    );
    const res = await postForm(h, `/checkout/${id}/cancel`, {});
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, CANCEL_STORED);
    expectAsciiHeaders(res, 'cancel of an older session');
    const urls = await readUrls(race.token, id);
    assert.equal(urls.cancel, CANCEL_STORED);
  });
});

describe('non-ASCII return URLs, embedded mode', () => {
  test('with a bearer token: stored percent-encoded; cancel and the confirmation answer, never a 500', async () => {
    const id = await createSession(h, race, {
      ui_mode: 'embedded',
      embed_origin: EMBED,
      on_success_url: SUCCESS,
      on_cancel_url: CANCEL,
    });
    assert.deepEqual(await readUrls(race.token, id), { success: successStored(id), cancel: CANCEL_STORED });
    const cancel = await postForm(h, `/checkout/${id}/cancel`, {});
    assert.equal(cancel.statusCode, 200, cancel.body);
    assert.match(cancel.body, /Checkout cancelled/);
    expectAsciiHeaders(cancel, 'embedded cancel');

    const other = await createSession(h, race, {
      ui_mode: 'embedded',
      embed_origin: EMBED,
      on_success_url: SUCCESS,
      on_cancel_url: CANCEL,
    });
    const paid = await postForm(h, `/checkout/${other}/order`, fullForm(race, { ticket: 'free' }));
    assert.equal(paid.statusCode, 303, paid.body);
    expectAsciiHeaders(paid, 'embedded order');
    const res = await getPage(h, String(paid.headers.location));
    assert.equal(res.statusCode, 200, res.body);
    expectAsciiHeaders(res, 'embedded confirmation');
    assert.doesNotMatch(res.body, /caf\u00e9|\u20ac/);
  });

  test('with a publishable key: stored percent-encoded too', async () => {
    const created = await h.service.api.inject({
      method: 'POST',
      url: '/v1/checkout-sessions',
      headers: {
        'content-type': 'application/json',
        'x-service-publishable-key': race.partner.publishableKey,
        origin: EMBED,
      },
      payload: JSON.stringify({
        event_id: race.eventId,
        ui_mode: 'embedded',
        on_success_url: SUCCESS,
        on_cancel_url: CANCEL,
      }),
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().data.id as string;
    assert.deepEqual(await readUrls(race.token, id), { success: successStored(id), cancel: CANCEL_STORED });
    const cancel = await postForm(h, `/checkout/${id}/cancel`, {});
    assert.equal(cancel.statusCode, 200, cancel.body);
    expectAsciiHeaders(cancel, 'embedded cancel (publishable key)');
  });
});

describe('IDN hosts', () => {
  test('a return URL domain registered as IDN or as punycode matches URLs in either form, stored as punycode', async () => {
    const org = dataOf(
      await admin(h, { method: 'POST', url: '/organizations', body: { name: 'Caf\u00e9 Runners' } }),
      201,
    );
    const client = dataOf(
      await admin(h, {
        method: 'POST',
        url: `/organizations/${org.id}/clients`,
        body: {
          name: 'IDN shop',
          scopes: ['events:read', 'checkout_sessions:write', 'checkout_sessions:read'],
          allowed_domains: [],
          return_url_domains: ['https://b\u00fccher.example', 'https://xn--caf-dma.example'],
        },
      }),
      201,
    );
    const partner = {
      organizationId: org.id as string,
      clientId: client.client_id as string,
      clientSecret: client.client_secret as string,
      publishableKey: client.publishable_key as string,
    };
    const event = await makeEvent(h, partner, {
      ticket_types: [{ name: 'Fun run', price_minor: 0, capacity: 10 }],
    });
    const token = await getToken(h, partner);
    const res = await h.service.api.inject({
      method: 'POST',
      url: '/v1/checkout-sessions',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: JSON.stringify({
        event_id: event.id,
        // punycode where the IDN was registered, and the other way round
        on_success_url: 'https://xn--bcher-kva.example/danke/\u00fcbersicht',
        on_cancel_url: 'https://caf\u00e9.example/panier/\u20ac',
      }),
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json().data.id as string;
    assert.deepEqual(await readUrls(token, id), {
      success: `https://xn--bcher-kva.example/danke/%C3%BCbersicht?session_id=${id}`,
      cancel: 'https://xn--caf-dma.example/panier/%E2%82%AC',
    });
    const cancel = await postForm(h, `/checkout/${id}/cancel`, {});
    assert.equal(cancel.statusCode, 303, cancel.body);
    assert.equal(cancel.headers.location, 'https://xn--caf-dma.example/panier/%E2%82%AC');
    expectAsciiHeaders(cancel, 'IDN cancel');
  });
});
