// The pages around the form in Swahili, over HTTP (inject): the wait screen, an outcome
// (declined), the cancel step and the confirmation follow Accept-Language, and a language chosen
// on the page (?lang=sw) stays on every form and link of the checkout. No English copy of these
// pages is left behind: brand names, codes and the partner's and event's names excepted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatWait, holdLimitMessage, promptLimitMessage } from '../../src/site/buyer-limits.ts';
import { CATALOGS } from '../../src/site/messages/catalog.ts';
import { runInLocale } from '../../src/site/messages/current.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import {
  createSession,
  EMBED,
  fullForm,
  getPage,
  makeRace,
  postForm,
  waitForStatus,
  type Race,
} from './site-helpers.ts';

let h: Harness;
let race: Race;

before(async () => {
  h = await startHarness();
  race = await makeRace(h);
});
after(() => h.close());

const SW = { 'accept-language': 'sw-UG,sw;q=0.9,en;q=0.5' };

/**
 * Words of the English copy these pages had: none may be left on a Swahili page. Case-sensitive
 * whole words, so that Swahili words containing the letters (and brand names) do not count.
 */
const ENGLISH = [
  'Approve',
  'approve',
  'payment',
  'Payment',
  'prompt',
  'Cancel',
  'cancel',
  'registered',
  'Registered',
  'number',
  'network',
  'tickets',
  'held',
  'Keep',
  'waiting',
  'Send',
  'Resend',
  'Try',
  'again',
  'declined',
  'order',
  'Order',
  'phone',
  'charged',
  'Change',
  'Continue',
  'confirmed',
  'happens',
  'code',
  'Return',
  'Time',
  'left',
  'the',
  'The',
  'your',
  'Your',
];

/** What may stay as it is: brand names, the test's own names and addresses, dial codes. */
const KEPT = [
  'MTN Mobile Money',
  'Airtel Money',
  'Kampala City 10K',
  'Kololo Airstrip',
  'Amina Nakato',
  'amina@example.org',
  'shop.example.org',
  '10 km',
];

/** The page's visible text and its words in attributes (title, labels, data-busy), tags dropped. */
function visibleText(body: string): string {
  const inBody = body
    .replace(/<script[^>]*>[\s\S]*?<\/script>/g, ' ')
    .replace(
      /<(?:[^>"]|"[^"]*")*?\b(?:data-busy|aria-label|title|alt|placeholder)="([^"]*)"(?:[^>"]|"[^"]*")*>/g,
      ' $1 ',
    )
    .replace(/<[^>]+>/g, ' ');
  const title = /<title>([^<]*)<\/title>/.exec(body)?.[1] ?? '';
  return KEPT.reduce((text, kept) => text.split(kept).join(' '), `${title} ${inBody}`);
}

function expectNoEnglish(body: string, page: string): void {
  const text = visibleText(body);
  const left = ENGLISH.filter((word) => new RegExp(`(^|[^\\p{L}])${word}([^\\p{L}]|$)`, 'u').test(text));
  assert.deepEqual(left, [], `English on the Swahili ${page}: ${text.replace(/\s+/g, ' ')}`);
}

function expectSwahili(body: string): void {
  assert.match(body, /<html lang="sw">/);
}

const sw = CATALOGS.sw.status;

/** A session whose prompt is out to `phone` (the simulator's number; 09 never settles). */
async function placeOrder(phone: string): Promise<string> {
  const id = await createSession(h, race);
  const res = await postForm(h, `/checkout/${id}/order`, fullForm(race, { phone }));
  assert.equal(res.statusCode, 303, res.body);
  return id;
}

describe('the checkout after the form, in Swahili', () => {
  test('the wait screen follows Accept-Language: sw, with no English copy left', async () => {
    const id = await placeOrder('0770000009');
    await waitForStatus(h, id, (s) => s.attempt_status === 'pending');
    const page = await getPage(h, `/checkout/${id}/pay`, SW);
    assert.equal(page.statusCode, 200);
    expectSwahili(page.body);
    assert.match(page.body, /<h2 id="h-wait" tabindex="-1" autofocus>Kubali malipo kwenye simu yako<\/h2>/);
    assert.match(page.body, /Tumetuma ombi la malipo la<strong>UGX/);
    assert.match(page.body, /kwa namba ya MTN Mobile Money<strong>0770 ••• 009<\/strong>/);
    assert.match(page.body, /Muda uliobaki wa kukubali:<strong data-prompt-countdown>\d+:\d\d<\/strong>/);
    assert.match(page.body, /Tiketi zako zimeshikiliwa kwa<strong data-countdown>/);
    assert.match(page.body, /<button type="submit">Tumia namba au mtandao mwingine<\/button>/);
    assert.match(
      page.body,
      /data-cancel-ask aria-controls="cancel-panel">Ghairi urudi kwa shop\.example\.org</,
    );
    assert.match(
      page.body,
      /<button type="button" class="primary" data-cancel-keep>Endelea kusubiri<\/button>/,
    );
    assert.match(page.body, /<title>Kubali malipo kwenye simu yako – Kampala City 10K<\/title>/);
    expectNoEnglish(page.body, 'wait screen');

    // The same page in English, for a buyer who asks for it: the check above can fail.
    const english = await getPage(h, `/checkout/${id}/pay`, { 'accept-language': 'en' });
    assert.match(english.body, /<html lang="en">/);
    assert.throws(() => expectNoEnglish(english.body, 'wait screen'));
  });

  test('the cancel step asks in Swahili', async () => {
    const id = await placeOrder('0770000009');
    await waitForStatus(h, id, (s) => s.attempt_status === 'pending');
    const page = await getPage(h, `/checkout/${id}/cancel`, SW);
    assert.equal(page.statusCode, 200);
    expectSwahili(page.body);
    assert.match(
      page.body,
      /<h2 id="h-cancel" tabindex="-1" autofocus>Ghairi wakati ombi la malipo liko kwenye simu yako\?<\/h2>/,
    );
    assert.match(page.body, /Ukilikubali, bado utakatwa pesa na kusajiliwa kwa Kampala City 10K\./);
    assert.match(page.body, /<a class="button primary" href="\/checkout\/[^"]+\/pay">Endelea kusubiri<\/a>/);
    expectNoEnglish(page.body, 'cancel step');
  });

  test('an embedded checkout left with a prompt out warns, and offers its buttons, in Swahili', async () => {
    const id = await createSession(h, race, {
      ui_mode: 'embedded',
      embed_origin: EMBED,
      on_success_url: undefined,
      on_cancel_url: undefined,
    });
    await postForm(h, `/checkout/${id}/order`, fullForm(race, { phone: '0770000009' }));
    const page = await getPage(h, `/checkout/${id}/pay?lang=sw`);
    assert.match(page.body, /data-cancel-ask aria-controls="cancel-panel">Ghairi<\/a>/);
    assert.match(page.body, /<button type="submit">Ghairi hata hivyo<\/button>/);
    const left = await postForm(h, `/checkout/${id}/cancel?lang=sw`, { confirm: 'yes' });
    assert.equal(left.statusCode, 200);
    expectSwahili(left.body);
    assert.match(left.body, /<h2 id="h-cancelled" tabindex="-1">Malipo yameghairiwa<\/h2>/);
    assert.match(
      left.body,
      /likatae: ukilikubali bado utakatwa pesa na kusajiliwa\. Unaweza kufunga ukurasa huu\./,
    );
    assert.match(left.body, /<button type="button" class="primary" data-close hidden>Funga<\/button>/);
    expectNoEnglish(left.body, 'cancelled page');
  });

  test('a declined payment is explained in Swahili, with the retry form', async () => {
    const id = await placeOrder('0770000003');
    await waitForStatus(h, id, (s) => s.attempt_status === 'failed');
    const page = await getPage(h, `/checkout/${id}/pay`, SW);
    expectSwahili(page.body);
    assert.match(
      page.body,
      new RegExp(`<h2 id="h-wait" tabindex="-1" autofocus>${sw.outcomes.payment_declined.title}</h2>`),
    );
    assert.match(page.body, /<p class="notice bad">Malipo hayakukubaliwa kwenye simu\./);
    assert.match(page.body, /<h3>Jaribu tena<\/h3>/);
    assert.match(page.body, /<legend>Mtandao<\/legend>/);
    assert.match(page.body, /data-busy="Inatuma…">Tuma ombi la malipo<\/button>/);
    expectNoEnglish(page.body, 'declined outcome');
  });

  test('the confirmation is in Swahili', async () => {
    const id = await placeOrder('0770000001');
    await waitForStatus(h, id, (s) => s.order_status === 'paid');
    const page = await getPage(h, `/checkout/${id}/pay`, SW);
    expectSwahili(page.body);
    assert.match(page.body, /<h2 id="h-done" tabindex="-1" autofocus>Umesajiliwa<\/h2>/);
    assert.match(page.body, /Malipo ya<strong>UGX[^<]+<\/strong>yamepokelewa\./);
    assert.match(page.body, /<p>Namba ya oda yako<\/p>/);
    assert.match(page.body, /\(umethibitishwa\)/);
    assert.match(page.body, />Endelea kwenye shop\.example\.org<\/a>/);
    assert.match(page.body, /<title>Umesajiliwa – Kampala City 10K<\/title>/);
    expectNoEnglish(page.body, 'confirmation');
  });

  test('a language chosen on the page (?lang=sw) stays on its forms and links', async () => {
    const id = await placeOrder('0770000003');
    await waitForStatus(h, id, (s) => s.attempt_status === 'failed');
    // English by Accept-Language, Swahili by choice: the choice wins and is carried on.
    const page = await getPage(h, `/checkout/${id}/pay?lang=sw`, { 'accept-language': 'en' });
    expectSwahili(page.body);
    const targets = [...page.body.matchAll(/(?:action|href)="(\/checkout\/[^"]+)"(?![^>]*hreflang)/g)].map(
      (m) => m[1]!,
    );
    assert.ok(targets.length >= 3, targets.join(' '));
    for (const target of targets) assert.match(target, /[?&]lang=sw$/, target);
    assert.match(page.body, /href="\/checkout\/[^"]+\/pay\?lang=en" hreflang="en"/, 'the switch back');

    // A form posted from it answers in Swahili, and its redirect keeps the choice.
    const retry = await postForm(h, `/checkout/${id}/retry?lang=sw`, {
      payment_method: 'momo',
      payment_phone: '123',
    });
    assert.equal(retry.statusCode, 400);
    expectSwahili(retry.body);
    assert.match(retry.body, /action="\/checkout\/[^"]+\/retry\?lang=sw"/);
    const switched = await postForm(h, `/checkout/${id}/switch?lang=sw`, {});
    assert.equal(switched.statusCode, 303);
    assert.match(String(switched.headers.location), /\/pay\?lang=sw$/);
  });

  test('the not-found page speaks Swahili', async () => {
    const missing = await getPage(h, '/checkout/cs_missing', SW);
    assert.equal(missing.statusCode, 404);
    expectSwahili(missing.body);
    assert.match(missing.body, /<h1>Malipo hayajapatikana<\/h1>/);
    expectNoEnglish(missing.body, 'not found page');
  });
});

/** `run` in the request language `locale`, as page-scope.ts runs every checkout request. */
function inLocale<T>(locale: 'en' | 'sw', run: () => T): T {
  let result: T | undefined;
  runInLocale({ locale, chosen: false }, () => {
    result = run();
  });
  return result as T;
}

describe('buyer limits in the request language', () => {
  test('the waits and limit messages are Swahili in Swahili and unchanged in English', () => {
    assert.equal(
      inLocale('sw', () => formatWait(45)),
      'sekunde 45',
    );
    assert.equal(
      inLocale('sw', () => formatWait(61)),
      'dakika 2',
    );
    assert.equal(
      inLocale('sw', () => promptLimitMessage(90)),
      'Maombi mengi mno ya malipo yametumwa kwa namba hii katika dakika 10 zilizopita. Tumia namba nyingine, au jaribu tena baada ya takriban dakika 2.',
    );
    assert.match(
      inLocale('sw', () => holdLimitMessage({ held: 4, limit: 5, retryAfterSeconds: 30 })),
      /^Ni tiketi 1 tu zaidi .* Chagua tiketi 1, au jaribu tena baada ya takriban sekunde 30\.$/,
    );
    assert.equal(
      inLocale('en', () => promptLimitMessage(90)),
      'Too many payment prompts have gone to this number in the last 10 minutes. Use another number, or try again in about 2 minutes.',
    );
    assert.equal(
      inLocale('en', () => holdLimitMessage({ held: 3, limit: 5, retryAfterSeconds: 1 })),
      'Only 2 more tickets can be taken for this event from your internet connection right now. Choose 2 or fewer, or try again in about 1 second.',
    );
  });
});
