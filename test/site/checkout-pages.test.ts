// The hosted checkout page by state, over HTTP (inject): unknown, open, embedded, expired and
// complete sessions; the security headers of each; the assets; status.json; embed.js; limits and
// errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { gunzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import {
  CHECKOUT_SCRIPT,
  CHECKOUT_SCRIPT_MAP,
  CHECKOUT_STYLES,
  PAGES_SCRIPT,
  PAGES_SCRIPT_MAP,
  SITE_ICON,
} from '../../src/site/assets.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import {
  createSession,
  EMBED,
  expectNoCookie,
  fullForm,
  getPage,
  makeRace,
  postForm,
  readSession,
  SHOP,
  type Race,
} from './site-helpers.ts';

const DAY = 24 * 3600 * 1000;
let h: Harness;
let race: Race;

before(async () => {
  h = await startHarness();
  race = await makeRace(h);
});
after(() => h.close());

function expectPageHeaders(
  res: { headers: Record<string, unknown> },
  frameAncestors: string,
  formAction: string,
) {
  assert.equal(
    res.headers['content-security-policy'],
    `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action ${formAction}; frame-ancestors ${frameAncestors}`,
  );
  assert.equal(res.headers['referrer-policy'], 'no-referrer');
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.equal(res.headers['cache-control'], 'no-store');
}

describe('GET /checkout/<session_id>', () => {
  test('an unknown or malformed session id gets a 404 page, not framable', async () => {
    for (const id of ['cs_0000000000000000000000', 'nope', 'cs_<script>', `cs_${'a'.repeat(150)}`]) {
      const res = await getPage(h, `/checkout/${encodeURIComponent(id)}`);
      assert.equal(res.statusCode, 404, id);
      assert.match(res.headers['content-type'] as string, /^text\/html/);
      assert.match(res.body, /<h1>Checkout not found<\/h1>/);
      expectPageHeaders(res, "'none'", "'self'");
      assert.equal(res.headers['x-frame-options'], 'DENY');
    }
    // Longer than the router takes: the host's own 404 (JSON), before any checkout route runs.
    assert.equal((await getPage(h, `/checkout/cs_${'a'.repeat(300)}`)).statusCode, 404);
    const deeper = await getPage(h, '/checkout/cs_0000000000000000000000/nothing/here');
    assert.equal(deeper.statusCode, 404);
    assert.match(deeper.body, /Checkout not found/);
  });

  test('an open redirect session shows the event and its tickets, with frame-ancestors none', async () => {
    const id = await createSession(h, race);
    const res = await getPage(h, `/checkout/${id}`);
    assert.equal(res.statusCode, 200);
    expectPageHeaders(res, "'none'", `'self' ${SHOP}`);
    assert.equal(res.headers['x-frame-options'], 'DENY');
    const body = res.body;
    assert.match(body, /<html lang="en">/);
    assert.match(body, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    assert.match(body, /<h1>Kampala City 10K<\/h1>/);
    assert.match(body, /Kololo Airstrip/);
    // The start time in the event's time zone (Africa/Kampala, UTC+3), from the event itself: the
    // clock moves on between creating the race and this test.
    const startsAt = new Date(race.startsAt);
    const local = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Africa/Kampala',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(startsAt);
    assert.ok(body.includes(local), `starts at ${local} local time`);
    // The price a buyer pays, with the fee it includes, per network.
    assert.match(body, /data-airtel="UGX\u00a031,050">UGX\u00a031,050<\/strong>/);
    assert.match(body, />incl\. UGX\u00a01,050 fee<\/span>/);
    assert.match(body, /Kampala time, EAT/, 'the zone is named, not an offset');
    assert.match(body, /Minimum age 16 on race day/);
    assert.match(body, /On sale until/);
    assert.match(body, /Only 5 left/, 'remaining shown when low');
    assert.doesNotMatch(body, /Only 100 left/);
    // One tile per method the service offers: no card tile until a card method is offered.
    assert.equal(body.match(/name="payment_method"/g)?.length, 2);
    assert.doesNotMatch(body, /value="card"|not yet available/);
    assert.match(body, /value="Amina Nakato"/, 'prefill applied');
    assert.match(body, /Read the waiver \(version 2026-03-01\)/);
    assert.match(body, new RegExp(`<script src="${CHECKOUT_SCRIPT.path}" defer></script>`));
    assert.match(body, new RegExp(`<link rel="stylesheet" href="${CHECKOUT_STYLES.path}">`));
    assert.doesNotMatch(body, /<script>|style="/, 'no inline script or style');
    assert.doesNotMatch(body, /https?:\/\/(?!shop\.example\.org)[a-z]/i, 'no third-party assets');
  });

  test('the buttons back to the partner carry its display name, else the host of its URL', async () => {
    const id = await createSession(h, race);
    const plain = await getPage(h, `/checkout/${id}`);
    assert.match(plain.body, />Cancel and return to shop\.example\.org<\/button>/);
    await h.service.ctx.database.rows(
      sql`UPDATE api_clients SET display_name = 'Kampala Road Runners' WHERE id = ${race.partner.clientId}`,
    );
    try {
      const named = await getPage(h, `/checkout/${id}`);
      assert.match(named.body, />Cancel and return to Kampala Road Runners<\/button>/);
      assert.doesNotMatch(named.body, /return to shop\.example\.org/);
    } finally {
      await h.service.ctx.database.rows(
        sql`UPDATE api_clients SET display_name = NULL WHERE id = ${race.partner.clientId}`,
      );
    }
  });

  test('an embedded session may be framed by its embed origin only', async () => {
    const id = await createSession(h, race, {
      ui_mode: 'embedded',
      embed_origin: EMBED,
      on_success_url: undefined,
      on_cancel_url: undefined,
    });
    const res = await getPage(h, `/checkout/${id}`);
    assert.equal(res.statusCode, 200);
    expectPageHeaders(res, EMBED, "'self'");
    assert.equal(res.headers['x-frame-options'], undefined);
    assert.match(res.body, new RegExp(`<body data-mode="embedded" data-embed-origin="${EMBED}"`));
  });

  test('an expired session says so, with the cancel link; an embedded one offers Close instead', async () => {
    const id = await createSession(h, race);
    const embedded = await createSession(h, race, {
      ui_mode: 'embedded',
      embed_origin: EMBED,
      on_success_url: undefined,
      on_cancel_url: undefined,
    });
    h.clock.advance(DAY + 1000);
    try {
      const res = await getPage(h, `/checkout/${id}`);
      assert.equal(res.statusCode, 410);
      expectPageHeaders(res, "'none'", `'self' ${SHOP}`);
      assert.match(res.body, /This checkout has expired/);
      assert.match(
        res.body,
        new RegExp(`<a class="button" href="${SHOP}/cart">Return to shop.example.org</a>`),
      );
      const framed = await getPage(h, `/checkout/${embedded}`);
      assert.equal(framed.statusCode, 410);
      assert.match(framed.body, /This checkout has expired/);
      assert.match(framed.body, /data-close/);
      assert.doesNotMatch(framed.body, /Return to/);
      // Nothing can be ordered on an expired session.
      const post = await postForm(h, `/checkout/${id}/order`, fullForm(race));
      assert.equal(post.statusCode, 410);
      assert.match(post.body, /This checkout has expired/);
    } finally {
      h.clock.advance(-(DAY + 1000));
    }
  });

  test('a complete session shows the confirmation again, without the automatic continue', async () => {
    const id = await createSession(h, race);
    const pay = await postForm(h, `/checkout/${id}/order`, fullForm(race, { ticket: 'free' }));
    assert.equal(pay.statusCode, 303);
    const session = await readSession(h, race, id);
    assert.equal(session.status, 'complete');
    const res = await getPage(h, `/checkout/${id}`);
    assert.equal(res.statusCode, 200);
    expectPageHeaders(res, "'none'", `'self' ${SHOP}`);
    assert.match(res.body, /You are registered/);
    assert.match(res.body, new RegExp(`<p class="code">${session.order!.code}</p>`));
    assert.match(res.body, /<strong>Okello Brian<\/strong>: 5 km fun run/);
    assert.match(res.body, /What happens next/);
    assert.match(res.body, new RegExp(`href="${SHOP}/thanks\\?session_id=${id}"`));
    assert.doesNotMatch(res.body, /data-continue-url/);
    assert.doesNotMatch(res.body, /http-equiv="refresh"/);
  });

  test('registration closed after the session was created: a clear page, no form', async () => {
    const closing = await makeRace(h);
    const id = await createSession(h, closing);
    await h.service.ctx.database.rows(
      (await import('drizzle-orm'))
        .sql`UPDATE events SET reg_closes_at = now() - interval '1 minute' WHERE id = ${closing.eventId}`,
    );
    const res = await getPage(h, `/checkout/${id}`);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Registration is closed/);
    assert.doesNotMatch(res.body, /data-checkout/);
  });

  test('event text is escaped everywhere; a cover shows only over https', async () => {
    const odd = await makeRace(h, {
      name: '<script>alert(1)</script> & "Run"',
      venue: "<img src=x onerror='x'>",
      cover: 'javascript:alert(1)',
    });
    const id = await createSession(h, odd);
    const res = await getPage(h, `/checkout/${id}`);
    assert.match(res.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &quot;Run&quot;/);
    assert.match(res.body, /&lt;img src=x onerror=&#39;x&#39;&gt;/);
    assert.doesNotMatch(res.body, /<script>alert|javascript:/);
    assert.doesNotMatch(res.body, /class="cover"/);
    const covered = await makeRace(h, { cover: 'https://img.example.org/cover.jpg' });
    const page = await getPage(h, `/checkout/${await createSession(h, covered)}`);
    assert.match(page.body, /<img class="cover" src="https:\/\/img\.example\.org\/cover\.jpg" alt=""/);
  });

  test('partner credentials are refused on the site host', async () => {
    const id = await createSession(h, race);
    const res = await h.service.site.inject({
      method: 'GET',
      url: `/checkout/${id}`,
      headers: { authorization: `Bearer ${race.token}` },
    });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error_code, 'partner_credential_not_accepted');
  });
});

describe('GET /checkout/<session_id>/status.json', () => {
  test('answers the order status for the poller, with no personal data', async () => {
    const id = await createSession(h, race);
    const empty = await getPage(h, `/checkout/${id}/status.json`);
    assert.equal(empty.statusCode, 200);
    assert.equal(empty.headers['cache-control'], 'no-store');
    assert.deepEqual(empty.json(), {
      order_status: null,
      failure_kind: null,
      hold_expires_at: null,
      seconds_left: 0,
      attempt_status: null,
      prompt_seconds_left: 0,
    });
    const pay = await postForm(h, `/checkout/${id}/order`, fullForm(race, { phone: '0770000009' }));
    assert.equal(pay.statusCode, 303);
    const res = await getPage(h, `/checkout/${id}/status.json`);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), [
      'attempt_status',
      'failure_kind',
      'hold_expires_at',
      'order_status',
      'prompt_seconds_left',
      'seconds_left',
    ]);
    assert.equal(body.order_status, 'pending');
    assert.equal(body.failure_kind, null);
    assert.match(body.hold_expires_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(body.seconds_left > 14 * 60 && body.seconds_left <= 15 * 60, String(body.seconds_left));
    assert.ok(['submitting', 'pending'].includes(body.attempt_status), body.attempt_status);
    assert.doesNotMatch(res.body, /Amina|amina@|0772|256/);
    const unknown = await getPage(h, '/checkout/cs_0000000000000000000000/status.json');
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error_code, 'not_found');
  });
});

describe('GET /checkout/<session_id>/embed.js', () => {
  /** Runs the script as a page would, on a <script> element of its own, and returns its data. */
  function run(body: string): Record<string, string> {
    const dataset: Record<string, string> = {};
    runInNewContext(body, { document: { currentScript: { dataset } } });
    return dataset;
  }

  test("writes an embedded session's embed origin on its own script element, for any page", async () => {
    const id = await createSession(h, race, {
      ui_mode: 'embedded',
      embed_origin: EMBED,
      on_success_url: undefined,
      on_cancel_url: undefined,
    });
    const res = await getPage(h, `/checkout/${id}/embed.js`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/javascript; charset=utf-8');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['cross-origin-resource-policy'], 'cross-origin');
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers['set-cookie'], undefined, 'no Set-Cookie');
    assert.deepEqual(run(res.body), { embedOrigin: EMBED });
  });

  test('says nothing for a redirect session, and is a 404 for no session', async () => {
    const id = await createSession(h, race);
    const redirect = await getPage(h, `/checkout/${id}/embed.js`);
    assert.equal(redirect.statusCode, 200);
    assert.deepEqual(run(redirect.body), {});
    for (const unknown of ['cs_0000000000000000000000', 'nope']) {
      const res = await getPage(h, `/checkout/${unknown}/embed.js`);
      assert.equal(res.statusCode, 404);
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      assert.doesNotMatch(String(res.headers['content-type']), /javascript/);
    }
  });
});

describe('assets', () => {
  test('the scripts, their source maps and the stylesheet are served by content hash, cached for a year, compressed on request', async () => {
    for (const asset of [
      CHECKOUT_SCRIPT,
      CHECKOUT_SCRIPT_MAP,
      PAGES_SCRIPT,
      PAGES_SCRIPT_MAP,
      CHECKOUT_STYLES,
    ]) {
      assert.match(asset.path, /^\/assets\/checkout(\.pages)?\.[A-Za-z0-9_-]{12}\.(js|js\.map|css)$/);
      const plain = await getPage(h, asset.path);
      assert.equal(plain.statusCode, 200);
      assert.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.equal(plain.headers['x-content-type-options'], 'nosniff');
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.rawPayload.length, asset.body.length);
      const gz = await getPage(h, asset.path, { 'accept-encoding': 'gzip' });
      assert.equal(gz.headers['content-encoding'], 'gzip');
      assert.deepEqual(gunzipSync(gz.rawPayload), asset.body);
      const br = await getPage(h, asset.path, { 'accept-encoding': 'gzip, deflate, br' });
      assert.equal(br.headers['content-encoding'], 'br');
    }
    assert.match(CHECKOUT_SCRIPT.contentType, /^text\/javascript/);
    assert.match(CHECKOUT_SCRIPT_MAP.contentType, /^application\/json/);
    assert.match(CHECKOUT_STYLES.contentType, /^text\/css/);
    const missing = await getPage(h, '/assets/checkout.AAAAAAAAAAAA.js');
    assert.equal(missing.statusCode, 404);
    assert.match(missing.headers['content-type'] as string, /^text\/html/);
  });

  test('the pages name the icon, and /favicon.ico leads to it', async () => {
    const page = await getPage(h, `/checkout/${await createSession(h, race)}`);
    assert.ok(page.body.includes(`<link rel="icon" href="${SITE_ICON.path}" type="image/svg+xml">`));
    const icon = await getPage(h, SITE_ICON.path);
    assert.equal(icon.statusCode, 200);
    assert.equal(icon.headers['content-type'], 'image/svg+xml');
    assert.match(icon.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    const favicon = await getPage(h, '/favicon.ico');
    assert.equal(favicon.statusCode, 301);
    assert.equal(favicon.headers.location, SITE_ICON.path);
  });

  test('the source map is reachable at the URL the script names, and describes that script', async () => {
    const script = await getPage(h, CHECKOUT_SCRIPT.path);
    const url = /\n\/\/# sourceMappingURL=(\S+)\n$/.exec(script.body)?.[1];
    assert.ok(url, 'the script names its map');
    const res = await getPage(h, new URL(url, `http://site.test${CHECKOUT_SCRIPT.path}`).pathname);
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^application\/json/);
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
    const map = res.json();
    assert.equal(map.version, 3);
    assert.ok(map.mappings.length > 1000);
    assert.ok(map.sources.includes('../../web/checkout-page/main.ts'), map.sources.join(' '));
    assert.equal(map.sources.length, map.sourcesContent.length);
  });

  test('pages are gzip-compressed when the browser asks', async () => {
    const id = await createSession(h, race);
    const res = await getPage(h, `/checkout/${id}`, { 'accept-encoding': 'gzip' });
    assert.equal(res.headers['content-encoding'], 'gzip');
    assert.equal(res.headers.vary, 'Accept-Encoding');
    assert.match(gunzipSync(res.rawPayload).toString('utf8'), /Kampala City 10K/);
  });
});

describe('limits and bad requests', () => {
  test('a JSON body to the form is refused with a 415 page', async () => {
    const id = await createSession(h, race);
    const res = await h.service.site.inject({
      method: 'POST',
      url: `/checkout/${id}/order`,
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expectNoCookie(res);
    assert.equal(res.statusCode, 415);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.match(res.body, /could not be handled/);
  });

  test('a NUL character in the form is a 400 page, not a server error', async () => {
    const id = await createSession(h, race);
    const res = await postForm(h, `/checkout/${id}/order`, { ...fullForm(race), 'buyer.name': 'A\u0000B' });
    assert.equal(res.statusCode, 400);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
  });

  test('too many requests from one IP get a 429 page with Retry-After', async () => {
    const limited = await startHarness({ env: { RATE_LIMIT_SITE_RATE: '1', RATE_LIMIT_SITE_BURST: '3' } });
    try {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 6; i++) {
        last = await limited.service.site.inject({
          method: 'GET',
          url: '/checkout/cs_0000000000000000000000',
          remoteAddress: '10.1.2.3',
        });
        expectNoCookie(last);
        statuses.push(last.statusCode);
      }
      assert.ok(statuses.includes(429), statuses.join(','));
      assert.equal(last!.statusCode, 429);
      assert.match(last!.headers['retry-after'] as string, /^\d+$/);
      assert.match(last!.headers['content-type'] as string, /^text\/html/);
      assert.match(last!.body, /Too many requests/);
      assert.equal(last!.headers['cache-control'], 'no-store');
      const other = await limited.service.site.inject({
        method: 'GET',
        url: '/checkout/cs_0000000000000000000000',
        remoteAddress: '10.1.2.4',
      });
      assert.equal(other.statusCode, 404, 'another IP is not limited');
    } finally {
      await limited.close();
    }
  });
});
