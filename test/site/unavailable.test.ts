// What a buyer without the page script gets when the checkout cannot answer (503): a page in their
// language that says whether a payment prompt was sent, offers the same request again ("Try
// again": the posted fields again for a form), a way back, the Retry-After and the request id to
// quote. Real faults: the service shedding under a real overload (requests held in hand behind a
// locked table, test/helpers/overload-fault.ts), and on PostgreSQL the database cut off behind a
// TCP proxy. Over loopback, so that a shed form's body is really left unread in the socket.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { runInLocale } from '../../src/site/messages/current.ts';
import { promptStateOf, startPromptFor } from '../../src/site/prompt-state.ts';
import { ANY_FRAMER, contentSecurityPolicy } from '../../src/site/security-headers.ts';
import {
  FRAMED_READY,
  renderUnavailablePage,
  UNAVAILABLE_INLINE,
} from '../../src/site/views/unavailable-page.ts';
import { freshPostgresDatabase, startHarness, type Harness } from '../helpers/harness.ts';
import { shedRequests, SHEDDING_SETTINGS } from '../helpers/overload-fault.ts';
import { waitFor } from '../helpers/wait.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';
import {
  attemptsOf,
  createSession,
  flat,
  fullForm,
  makeRace,
  ordersOf,
  waitForStatus,
  type Race,
} from './site-helpers.ts';

const PG = process.env.TEST_DATABASE_URL;
const DECLINED = '0770000003';

interface Answer {
  status: number;
  headers: Headers;
  /** flattened markup (site-helpers.ts flat) */
  body: string;
}

async function call(
  base: string,
  path: string,
  init: { fields?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const res = await fetch(base + path, {
    method: init.fields ? 'POST' : 'GET',
    redirect: 'manual',
    headers: {
      ...(init.fields && { 'content-type': 'application/x-www-form-urlencoded' }),
      ...init.headers,
    },
    ...(init.fields && { body: new URLSearchParams(init.fields).toString() }),
  });
  return { status: res.status, headers: res.headers, body: flat(await res.text()) };
}

const unescape = (value: string) =>
  value.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!,
  );

/** The page's "Try again" form: its action and hidden fields, as a browser would send them. */
function againForm(body: string): { action: string; fields: Record<string, string> } {
  const form = /<form method="post" action="([^"]+)" data-once>(.*?)<\/form>/.exec(body);
  assert.ok(form, 'a form offering the submission again');
  const fields: Record<string, string> = {};
  for (const [, name, value] of form[2]!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[unescape(name!)] = unescape(value!);
  }
  return { action: unescape(form[1]!), fields };
}

/** The 503 every such answer is: Retry-After, no-store, the request id shown, framable. */
function expectUnavailable(answer: Answer, retryAfter: string): void {
  assert.equal(answer.status, 503);
  assert.equal(answer.headers.get('retry-after'), retryAfter);
  assert.match(String(answer.headers.get('content-type')), /^text\/html/);
  assert.equal(answer.headers.get('cache-control'), 'no-store');
  const requestId = answer.headers.get('x-request-id');
  assert.match(String(requestId), /^req_[A-Za-z0-9]{24}$/);
  assert.match(answer.body, new RegExp(`<p class="muted" data-reference>[^<]*${requestId}</p>`));
  assert.match(String(answer.headers.get('content-security-policy')), /frame-ancestors \*/);
  assert.equal(answer.headers.get('x-frame-options'), null);
}

const EN = {
  title: 'Sorry, the checkout is unavailable for a moment',
  nothing: 'Nothing was sent to your phone.',
  none: 'No payment prompt was sent to your phone, and nothing was charged.',
  noneNew: 'No new payment prompt was sent.',
  kept: 'What you entered is kept. Please try again in a moment.',
};
const SW = {
  title: 'Samahani, huduma ya malipo haipatikani kwa muda mfupi',
  nothing: 'Hakuna kilichotumwa kwenye simu yako.',
  none: 'Hakuna ombi la malipo lililotumwa kwenye simu yako, na hakuna pesa iliyokatwa.',
  waiting: 'Hatukuweza kuangalia malipo yako sasa hivi.',
  kept: 'Ulichoandika kimehifadhiwa. Tafadhali jaribu tena baada ya muda mfupi.',
};

describe('the checkout while it sheds, without the page script', () => {
  let h: Harness;
  let site: string;
  let race: Race;

  before(async () => {
    h = await startHarness({ env: SHEDDING_SETTINGS });
    ({ site } = await h.service.listen({ api: 0, site: 0, app: 0 }));
    race = await makeRace(h);
  });
  after(async () => {
    await h?.close();
  });

  test('opening the checkout: a page in Swahili saying nothing was sent, with Try again, which then opens it', async () => {
    const id = await createSession(h, race);
    const shedding = await shedRequests(h, site);
    let page: Answer;
    try {
      page = await call(site, `/checkout/${id}`, { headers: { 'accept-language': 'sw' } });
    } finally {
      await shedding.release();
    }
    expectUnavailable(page, '1');
    assert.match(page.body, /<html lang="sw">/);
    assert.match(page.body, new RegExp(`<title>${SW.title}</title>`));
    assert.ok(page.body.includes(`<p class="notice" data-say>${SW.nothing}</p>`));
    const again = /<a class="button primary" href="([^"]+)">Jaribu tena<\/a>/.exec(page.body);
    assert.equal(again?.[1], `/checkout/${id}`);
    assert.doesNotMatch(page.body, /http-equiv="refresh"/, 'only the wait screen reloads itself');

    const opened = await call(site, again[1]!, { headers: { 'accept-language': 'sw' } });
    assert.equal(opened.status, 200);
    assert.match(opened.body, /<form id="checkout" method="post" action="[^"]*\/order"/);
  });

  for (const language of ['en', 'sw'] as const) {
    test(`Pay (${language}): no prompt was sent, the same form comes back, and Try again sends one prompt`, async () => {
      const id = await createSession(h, race);
      const words = language === 'sw' ? SW : EN;
      const query = language === 'sw' ? '?lang=sw' : '';
      const typed = fullForm(race);
      const shedding = await shedRequests(h, site);
      let page: Answer;
      try {
        page = await call(site, `/checkout/${id}/order${query}`, { fields: typed });
      } finally {
        await shedding.release();
      }
      expectUnavailable(page, '1');
      assert.ok(page.body.includes(`<p class="notice" data-say>${words.none}</p>`), page.body);
      assert.ok(page.body.includes(`<p data-say>${words.kept}</p>`));
      const again = againForm(page.body);
      assert.equal(again.action, `/checkout/${id}/order${query}`);
      assert.deepEqual(again.fields, typed, 'everything typed, Pay included, is in the form');
      assert.match(
        page.body,
        /<button type="submit" class="primary" data-prompt>(Try again|Jaribu tena)<\/button>/,
      );
      assert.ok(page.body.includes(`<a href="/checkout/${id}${query}">`), 'a way back to the checkout');
      assert.equal(await ordersOf(h, id), 0, 'nothing was placed');

      const paid = await call(site, again.action, { fields: again.fields });
      assert.equal(paid.status, 303);
      assert.equal(paid.headers.get('location'), `/checkout/${id}/pay${query}`);
      assert.equal(await attemptsOf(h, id), 1, 'one prompt');
      // The buyer, unsure, presses Try again once more: the prompt out is not sent again.
      const twice = await call(site, again.action, { fields: again.fields });
      assert.equal(twice.status, 303);
      assert.equal(await attemptsOf(h, id), 1, 'still one prompt');
    });
  }

  test('a step of the form (without the script each is a POST) keeps the answers and says nothing was sent', async () => {
    const id = await createSession(h, race);
    const typed = { ...fullForm(race, { action: 'payment' }), from: 'details' };
    const shedding = await shedRequests(h, site);
    let page: Answer;
    try {
      page = await call(site, `/checkout/${id}/order`, { fields: typed });
    } finally {
      await shedding.release();
    }
    expectUnavailable(page, '1');
    assert.ok(page.body.includes(`<p class="notice" data-say>${EN.nothing}</p>`));
    assert.deepEqual(againForm(page.body).fields, typed);
    assert.doesNotMatch(page.body, /data-prompt>/, 'moving on sends no prompt');
    const next = await call(site, `/checkout/${id}/order`, { fields: againForm(page.body).fields });
    assert.equal(next.status, 200);
    assert.match(next.body, /data-stage="payment"/);
  });

  test('the wait screen: a page that checks again by itself after Retry-After', async () => {
    const id = await createSession(h, race);
    assert.equal((await call(site, `/checkout/${id}/order`, { fields: fullForm(race) })).status, 303);
    const shedding = await shedRequests(h, site);
    let page: Answer;
    let poll: Response;
    try {
      page = await call(site, `/checkout/${id}/pay`, { headers: { 'accept-language': 'sw' } });
      poll = await fetch(`${site}/checkout/${id}/status.json`);
    } finally {
      await shedding.release();
    }
    expectUnavailable(page, '1');
    assert.match(page.body, /<meta http-equiv="refresh" content="1">/);
    assert.ok(page.body.includes(SW.waiting));
    assert.ok(page.body.includes(`<a class="button primary" href="/checkout/${id}/pay">Jaribu tena</a>`));
    // The script's poll reads JSON and the Retry-After.
    assert.equal(poll.status, 503);
    assert.equal(poll.headers.get('retry-after'), '1');
    assert.equal(((await poll.json()) as { error_code: string }).error_code, 'service_unavailable');
    assert.equal((await call(site, `/checkout/${id}/pay`)).status, 200, 'after the overload');
  });

  test('the wait screen forms: each says what it did to the phone, is offered again and leads back to the payment', async () => {
    const id = await createSession(h, race);
    // A declined prompt: the retry form is what the buyer has.
    await call(site, `/checkout/${id}/order`, { fields: fullForm(race, { phone: DECLINED }) });
    await waitForStatus(h, id, (s) => s.attempt_status === 'failed');
    const retry = { payment_method: 'momo', payment_phone: '0770000001' };
    const cases: { path: string; fields: Record<string, string>; says: string; prompt: boolean }[] = [
      { path: '/retry', fields: retry, says: EN.none, prompt: true },
      { path: '/resend', fields: {}, says: EN.noneNew, prompt: true },
      { path: '/switch', fields: {}, says: EN.noneNew, prompt: false },
      { path: '/cancel', fields: { confirm: 'yes' }, says: EN.nothing, prompt: false },
    ];
    const shedding = await shedRequests(h, site);
    const pages: Answer[] = [];
    try {
      for (const c of cases) pages.push(await call(site, `/checkout/${id}${c.path}`, { fields: c.fields }));
    } finally {
      await shedding.release();
    }
    cases.forEach((c, i) => {
      const page = pages[i]!;
      expectUnavailable(page, '1');
      assert.ok(page.body.includes(c.says), `${c.path}: ${c.says}`);
      const again = againForm(page.body);
      assert.equal(again.action, `/checkout/${id}${c.path}`);
      assert.deepEqual(again.fields, c.fields, c.path);
      assert.equal(/data-prompt>/.test(page.body), c.prompt, `${c.path}: may prompt`);
      const back = c.path === '/cancel' ? `/checkout/${id}` : `/checkout/${id}/pay`;
      assert.ok(page.body.includes(`<a href="${back}">`), `${c.path}: back to ${back}`);
    });
    assert.equal(await attemptsOf(h, id), 1, 'nothing was sent while it shed');
    const again = againForm(pages[0]!.body);
    const sent = await call(site, again.action, { fields: again.fields });
    assert.equal(sent.status, 303);
    assert.equal(sent.headers.get('location'), `/checkout/${id}/pay`);
    assert.equal(await attemptsOf(h, id), 2, 'Try again sent the new prompt');
  });
});

describe('what a 503 page says of a prompt', () => {
  test('sent, or unknown when the database failed inside the payment start, in both languages', () => {
    const page = (language: 'en' | 'sw', prompt: 'sent' | 'unknown') => {
      let markup = '';
      runInLocale({ locale: language, chosen: false }, () => {
        markup = flat(
          renderUnavailablePage({
            step: 'pay',
            prompt,
            requestId: 'req_x',
            again: { method: 'post', path: '/checkout/cs_x/order', fields: { action: 'pay' } },
            back: { path: '/checkout/cs_x/pay', to: 'payment' },
          }),
        );
      });
      return markup;
    };
    assert.ok(page('en', 'sent').includes('A payment prompt was sent to your phone: approve it there'));
    assert.ok(page('sw', 'sent').includes('Ombi la malipo limetumwa kwenye simu yako'));
    const unknown = page('en', 'unknown');
    assert.ok(unknown.includes('<p class="notice bad" data-say>We cannot tell whether a payment prompt'));
    assert.ok(unknown.includes('Check your phone before you try again'));
    assert.ok(page('sw', 'unknown').includes('Angalia simu yako kabla ya kujaribu tena'));
    assert.ok(unknown.includes('<a href="/checkout/cs_x/pay">Check the payment status</a>'));
  });

  test('runs and styles only what its Content-Security-Policy allows by hash, and its script parses', () => {
    let markup = '';
    runInLocale({ locale: 'en', chosen: false }, () => {
      markup = renderUnavailablePage({ step: 'open', prompt: 'none', requestId: 'req_x', again: null });
    });
    const inline = (tag: string) =>
      [...markup.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map((m) => m[1]!);
    assert.deepEqual(inline('script'), UNAVAILABLE_INLINE.scripts);
    assert.deepEqual(inline('style'), UNAVAILABLE_INLINE.styles);
    assert.doesNotThrow(() => new Function(FRAMED_READY));
    const csp = contentSecurityPolicy(ANY_FRAMER, UNAVAILABLE_INLINE);
    const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    assert.ok(csp.includes(`script-src 'self' ${hash(FRAMED_READY)};`), csp);
    assert.ok(csp.includes(`style-src 'self' ${hash(UNAVAILABLE_INLINE.styles[0]!)};`), csp);
    assert.ok(!markup.includes('<link rel="stylesheet"'), 'nothing a shedding service would refuse');
  });

  test('a request remembers how far its payment start got', async () => {
    const unreachable = Object.assign(new Error('write CONNECTION_CLOSED'), { code: 'CONNECTION_CLOSED' });
    const request = (started: () => Promise<unknown>) => {
      const r = {} as Parameters<typeof promptStateOf>[0];
      return startPromptFor(r, started).then(
        () => promptStateOf(r),
        () => promptStateOf(r),
      );
    };
    assert.equal(promptStateOf({} as Parameters<typeof promptStateOf>[0]), 'none');
    assert.equal(await request(async () => 'ok'), 'sent');
    assert.equal(await request(() => Promise.reject(unreachable)), 'unknown');
    assert.equal(await request(() => Promise.reject(new Error('order_not_payable'))), 'none');
  });
});

describe(
  'the checkout with its PostgreSQL database cut off',
  { skip: PG ? false : 'needs PostgreSQL (TEST_DATABASE_URL)' },
  () => {
    let h: Harness;
    let site: string;
    let race: Race;
    let proxy: TcpProxy;
    let drop: () => Promise<void>;

    before(async () => {
      const base = new URL(PG!);
      proxy = new TcpProxy({ host: base.hostname, port: Number(base.port || 5432) });
      await proxy.start();
      const fresh = await freshPostgresDatabase(PG!);
      drop = fresh.drop;
      const url = new URL(fresh.url);
      url.host = `127.0.0.1:${proxy.port}`;
      h = await startHarness({ env: { ...SHEDDING_SETTINGS, DATABASE_URL: url.toString() } });
      ({ site } = await h.service.listen({ api: 0, site: 0, app: 0 }));
      race = await makeRace(h);
    });
    after(async () => {
      if (proxy?.port) await proxy.start().catch(() => {});
      await h?.close();
      await proxy?.cut();
      await drop?.();
    });

    test('opening the page and Pay answer the 503 page in the buyer language; Try again pays once it is back', async () => {
      const id = await createSession(h, race);
      const typed = fullForm(race);
      await proxy.cut();
      let opened: Answer;
      let paying: Answer;
      try {
        opened = await call(site, `/checkout/${id}`, { headers: { 'accept-language': 'sw' } });
        paying = await call(site, `/checkout/${id}/order?lang=sw`, { fields: typed });
      } finally {
        await proxy.start();
      }
      for (const page of [opened, paying]) {
        expectUnavailable(page, '5');
        assert.match(page.body, /<html lang="sw">/);
      }
      assert.ok(opened.body.includes(SW.nothing));
      assert.ok(paying.body.includes(SW.none), 'the order failed before any prompt');
      const again = againForm(paying.body);
      assert.deepEqual(again.fields, typed);
      // postgres.js reconnects with a backoff: the first tries after the cut may still fail.
      let sent: Answer | null = null;
      await waitFor('Try again to go through', async () => {
        sent = await call(site, again.action, { fields: again.fields });
        return sent.status !== 503;
      });
      assert.equal(sent!.status, 303);
      assert.equal(sent!.headers.get('location'), `/checkout/${id}/pay?lang=sw`);
      assert.equal(await attemptsOf(h, id), 1);
    });
  },
);
