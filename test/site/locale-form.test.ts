// The checkout form in the buyer's language: Accept-Language chooses between English and Swahili,
// the page's switch (?lang=) overrides it and stays on the checkout's own links and forms, and a
// Swahili page holds no English copy.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pickLocale } from '../../src/site/messages/current.ts';
import { CATALOGS } from '../../src/site/messages/catalog.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { createSession, fullForm, getPage, makeRace, ordersOf, postForm, type Race } from './site-helpers.ts';

let h: Harness;
let race: Race;

before(async () => {
  h = await startHarness();
  race = await makeRace(h);
});
after(() => h.close());

/** The form's language switch: a submit button of the form, to the same step in `lang`. */
function switchTo(id: string, lang: string, name: string): RegExp {
  return new RegExp(
    `<button\\s+type="submit"\\s+form="checkout"\\s+formaction="/checkout/${id}/order\\?lang=${lang}"\\s+formnovalidate\\s+name="action"\\s+value="language"\\s+class="link"\\s+lang="${lang}"\\s*>\\s*${name}\\s*</button>`,
  );
}

/** The words a buyer reads: no scripts, tags or attribute values, entities decoded enough. */
function visibleText(body: string): string {
  return body
    .replace(/<script[^]*?<\/script>/g, ' ')
    .replace(/<template[^]*?<\/template>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|\u00a0/g, ' ')
    .replace(/\s+/g, ' ');
}

/** English copy of the form that must not show on a Swahili page. */
const ENGLISH = [
  'Step',
  'Tickets',
  'Continue',
  'Quantity',
  'Choose',
  'I am the runner',
  'Your details',
  'Your name',
  'Phone number',
  'Payment',
  'Pay with',
  'Total',
  'Back',
  'Secure checkout',
  'Questions',
  'On sale',
  'Minimum age',
  'waiver',
  'required',
  'There is a problem',
  'Error',
];

describe('choosing the language', () => {
  test('Accept-Language picks the best language we have; ?lang= overrides it', () => {
    const cases: [string | undefined, unknown, string, boolean][] = [
      [undefined, {}, 'en', false],
      ['sw', {}, 'sw', false],
      ['sw-KE,sw;q=0.9', {}, 'sw', false],
      ['fr-FR, sw;q=0.8, en;q=0.5', {}, 'sw', false],
      ['en-GB,en;q=0.9,sw;q=0.8', {}, 'en', false],
      ['sw;q=0, en', {}, 'en', false],
      ['xx, ;;;, q=', {}, 'en', false],
      ['en', { lang: 'sw' }, 'sw', true],
      ['sw', { lang: 'en' }, 'en', true],
      ['sw', { lang: 'de' }, 'sw', false],
      ['sw', { lang: ['en'] }, 'sw', false],
    ];
    for (const [header, query, locale, chosen] of cases) {
      assert.deepEqual(pickLocale(query, header), { locale, chosen }, `${header} ${JSON.stringify(query)}`);
    }
  });

  test('the Swahili catalog has every message of the English one, none left empty', () => {
    const walk = (en: object, sw: object, path: string) => {
      for (const [key, value] of Object.entries(en)) {
        const other = (sw as Record<string, unknown>)[key];
        assert.equal(typeof other, typeof value, `${path}${key}`);
        if (typeof value === 'object') walk(value as object, other as object, `${path}${key}.`);
        if (typeof value === 'string') assert.ok((other as string).trim() !== '', `${path}${key}`);
      }
    };
    walk(CATALOGS.en, CATALOGS.sw, '');
  });
});

describe('the form in Swahili', () => {
  test('Accept-Language: sw gives a Swahili page, dates and zone included, with a switch to English', async () => {
    const id = await createSession(h, race);
    const page = await getPage(h, `/checkout/${id}`, { 'accept-language': 'sw' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<html lang="sw">/);
    const text = visibleText(page.body);
    for (const phrase of ['Hatua 1 kati ya 3', 'Tiketi', 'Endelea', 'Saa za Kampala, EAT', 'Desemba']) {
      assert.ok(text.includes(phrase), phrase);
    }
    for (const word of ENGLISH) assert.ok(!text.includes(word), `no "${word}" on the Swahili page`);
    assert.match(page.body, switchTo(id, 'en', 'English'));
    // The page script gets its words in Swahili too.
    const json = /<script type="application\/json" id="checkout-messages">([^<]*)<\/script>/.exec(page.body);
    assert.equal(JSON.parse(json![1]!).continue, 'Endelea');
    // Without the header: English, with a switch to Swahili.
    const english = await getPage(h, `/checkout/${id}`);
    assert.match(english.body, /<html lang="en">/);
    assert.match(english.body, switchTo(id, 'sw', 'Kiswahili'));
  });

  test('the switch at the top brings the same step back in the other language, with all that was typed', async () => {
    const id = await createSession(h, race);
    const page = await getPage(h, `/checkout/${id}`);
    // At the top: before the event's header.
    assert.ok(page.body.indexOf('class="topbar"') < page.body.indexOf('<header class="event">'));
    const typed = { ...fullForm(race), 'buyer.name': 'Amina Nakato', 'buyer.email': 'amina@' };
    const res = await postForm(h, `/checkout/${id}/order?lang=sw`, {
      ...typed,
      action: 'language',
      from: 'details',
    });
    assert.equal(res.statusCode, 200, 'no errors: nothing was checked');
    assert.match(res.body, /<html lang="sw">/);
    assert.match(res.body, /<section\s+class="step"\s+data-step="details"\s+aria-labelledby="h-details"\s*>/);
    assert.match(
      res.body,
      /name="buyer\.name"[^>]*value="Amina Nakato"|value="Amina Nakato"[^>]*name="buyer\.name"/,
    );
    assert.match(res.body, /value="amina@"/, 'even a value not yet valid');
    assert.match(res.body, /value="Okello Brian"/);
    assert.doesNotMatch(res.body, /Kuna tatizo/, 'no error summary');
    // An embedded checkout asks before it closes on what the buyer typed (close-confirm.ts).
    assert.match(res.body, /<form id="checkout"[^>]* data-typed>/);
    assert.doesNotMatch(page.body, /data-typed/, 'a fresh form holds nothing typed');
    assert.match(res.body, new RegExp(`action="/checkout/${id}/order\\?lang=sw"`), 'the language stays');
    assert.match(res.body, switchTo(id, 'en', 'English'));
    assert.equal(await ordersOf(h, id), 0, 'nothing ordered');
  });

  test('a language chosen on the page stays on the form and its errors', async () => {
    const id = await createSession(h, race);
    const page = await getPage(h, `/checkout/${id}?lang=sw`, { 'accept-language': 'en' });
    assert.match(page.body, /<html lang="sw">/);
    assert.match(page.body, new RegExp(`action="/checkout/${id}/order\\?lang=sw"`));
    const res = await postForm(h, `/checkout/${id}/order?lang=sw`, {
      ...fullForm(race),
      'buyer.name': '',
      'buyer.email': 'x',
      action: 'payment',
      from: 'details',
    });
    assert.equal(res.statusCode, 400);
    const text = visibleText(res.body);
    assert.ok(text.includes('Kuna tatizo'), 'error summary');
    assert.ok(text.includes('Jina lako inahitajika'), 'a required field');
    assert.ok(text.includes('Barua pepe si sahihi'), 'an invalid field');
    for (const word of ENGLISH) assert.ok(!text.includes(word), `no "${word}" on the Swahili page`);
    // Paying keeps the language on the wait screen.
    const paid = await postForm(h, `/checkout/${id}/order?lang=sw`, fullForm(race));
    assert.equal(paid.statusCode, 303);
    assert.equal(paid.headers.location, `/checkout/${id}/pay?lang=sw`);
  });
});
