// Cards on the hosted checkout without JavaScript: a card tile where the organization turned cards
// on (none where it did not), its total from the card fee, no number asked; Pay leads a top-level
// checkout to the provider's card page, and an embedded one to a wait screen whose link opens the
// card page in a new tab; the card page's return lands on the confirmation (in the new tab: "you
// may close this tab"); a declined card shows card words and the buyer pays by mobile money.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { organizations } from '../../src/organizations/organizations.schema.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import {
  createSession,
  EMBED,
  fullForm,
  getPage,
  makeRace,
  postForm,
  readOrder,
  readSession,
  waitForStatus,
  type Race,
} from './site-helpers.ts';

let h: Harness;
let cards: Race;
let plain: Race;
let kes: Race;

before(async () => {
  h = await startHarness();
  cards = await makeRace(h);
  plain = await makeRace(h);
  kes = await makeRace(h, {
    currency: 'KES',
    timezone: 'Africa/Nairobi',
    ticket_types: [{ name: '10 km', price_minor: 150_000, capacity: 100, distance_km: 10 }],
  });
  for (const race of [cards, kes]) {
    await h.service.ctx.database.db
      .update(organizations)
      .set({ optedInMethods: ['card'] })
      .where(eq(organizations.id, race.partner.organizationId));
  }
});
after(() => h.close());

const NBSP = '\u00a0';
const orderUrl = (id: string) => `/checkout/${id}/order`;
const cardForm = (race: Race, extra: Record<string, string> = {}) => ({
  ...fullForm(race, { method: 'card', phone: '' }),
  ...extra,
});

/**
 * Pay by card from a top-level checkout: its answer is the wait screen, which goes on to the card
 * page at once (a refresh: the form's CSP forbids redirecting its POST to another origin).
 * Returns the card page's address.
 */
async function payByCard(id: string, form: Record<string, string>, url = orderUrl(id)): Promise<string> {
  const paid = await postForm(h, url, form);
  assert.equal(paid.statusCode, 303, paid.body);
  assert.equal(paid.headers.location, `/checkout/${id}/pay?card=1`);
  const onward = await getPage(h, String(paid.headers.location));
  const refresh = /<meta http-equiv="refresh" content="0; url=([^"]+)">/.exec(onward.body);
  assert.ok(refresh, 'the wait screen goes on to the card page');
  const page = refresh[1]!.replace(/&amp;/g, '&');
  assert.match(page, /\/flutterwave\/pay\//);
  return page;
}

/** The buyer on the simulator's card page: types `card`, the OTP when asked; returns where it sends them. */
async function payOnPage(link: string, card: string): Promise<URL> {
  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    redirect: 'manual' as const,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  let res = await fetch(link, form({ card_number: card, expiry: '12/30', cvv: '123' }));
  // 3-D Secure: the page's own OTP step (on the card page's origin); else straight back to us.
  const next = new URL(res.headers.get('location') ?? '', link);
  if (res.status === 303 && next.origin === new URL(link).origin) {
    res = await fetch(next, { redirect: 'manual' });
    if (/name="otp"/.test(await res.text())) res = await fetch(`${link}/otp`, form({ otp: '12345' }));
  }
  assert.equal(res.status, 303, 'the card page sends the buyer back');
  return new URL(res.headers.get('location')!);
}

describe('the card tile', () => {
  test('shows where the organization turned cards on, priced with the card fee, in English and Swahili', async () => {
    const id = await createSession(h, cards);
    const step = await postForm(h, orderUrl(id), { ...fullForm(cards), action: 'payment', from: 'details' });
    assert.equal(step.statusCode, 200, step.body);
    assert.match(step.body, /data-methods="momo airtel card"/);
    // UGX 30,000 at 3.8 % is 1,140: the quantity carries the card's fee for the live total.
    assert.match(step.body, /data-fee-card="1140"/);
    assert.match(
      step.body,
      /value="card"[^>]*>[^]*?<span class="brand brand-card" aria-hidden="true">CARD<\/span><span>Card<span class="detail">On the secure card page<\/span>/,
    );
    assert.match(step.body, /The payment prompt goes to this phone\. Not needed when you pay by card\./);
    // the page script's copy of the offer: card is paid on its page, with no number
    assert.match(
      step.body,
      /\{"key":"card","name":"Card","country":null,"prefixes":\[\],"hostedPage":true\}/,
    );
    // the phone words name the mobile money networks only
    assert.match(step.body, /"phoneNotMobileMoney":"[^"]*enter an MTN or Airtel number/);
    assert.doesNotMatch(step.body, /Visa or Mastercard/);

    const chosen = await postForm(h, orderUrl(id), {
      ...cardForm(cards),
      action: 'payment',
      from: 'details',
    });
    assert.match(chosen.body, new RegExp(`Service fee \\(Card\\)</th><td class="num">UGX${NBSP}1,140<`));
    assert.match(chosen.body, new RegExp(`Pay UGX${NBSP}31,140`));

    const sw = await postForm(h, `${orderUrl(id)}?lang=sw`, {
      ...cardForm(cards),
      action: 'payment',
      from: 'details',
    });
    assert.match(sw.body, /KADI<\/span><span>Kadi<span class="detail">Kwenye ukurasa salama wa kadi<\/span>/);
    assert.match(sw.body, /Haihitajiki ukilipa kwa kadi\./);
    assert.match(sw.body, /"name":"Kadi"/);
  });

  test('a UGX event of an organization without cards shows no card tile, and refuses card', async () => {
    const id = await createSession(h, plain);
    const step = await postForm(h, orderUrl(id), { ...fullForm(plain), action: 'payment', from: 'details' });
    assert.match(step.body, /data-methods="momo airtel"/);
    assert.doesNotMatch(step.body, /value="card"|brand-card|data-fee-card|"key":"card"|by card/);
    const paid = await postForm(h, orderUrl(id), cardForm(plain));
    assert.equal(paid.statusCode, 400);
    assert.match(paid.body, /<p class="error" id="err-f-payment_method">Error: Choose how to pay<\/p>/);
    assert.equal((await readSession(h, plain, id)).order, null);
  });

  test('a KES event with cards: M-Pesa first and chosen for a Safaricom number, card second', async () => {
    const id = await createSession(h, kes);
    const step = await postForm(h, orderUrl(id), {
      ...fullForm(kes, { method: '', phone: '' }),
      'buyer.phone': '0712345678',
      action: 'payment',
      from: 'details',
    });
    assert.equal(step.statusCode, 200, step.body);
    const radios = [...step.body.matchAll(/<input type="radio"[^>]*name="payment_method"[^>]*>/g)].map(
      (m) => m[0],
    );
    assert.deepEqual(
      radios.map((r) => /value="(\w+)"/.exec(r)![1]),
      ['mpesa', 'card'],
    );
    assert.match(radios[0]!, /checked/);
    assert.doesNotMatch(radios[1]!, /checked/);
    assert.match(step.body, /"phoneNotMobileMoney":"[^"]*enter a Safaricom number/);
  });
});

describe('paying by card', () => {
  test('a top-level checkout goes to the card page, and its return to the confirmation', async () => {
    const id = await createSession(h, cards);
    // No number asked: a number field left with rubbish is not read for card.
    const page = await payByCard(id, cardForm(cards, { payment_phone: '123' }));
    const order = (await readSession(h, cards, id)).order!;
    assert.equal(order.status, 'pending');

    // Without ?card=1 (a reload, Back from the card page) the wait screen stays, with its link.
    const waiting = await getPage(h, `/checkout/${id}/pay`);
    assert.doesNotMatch(waiting.body, /content="0; url=/);
    // the script of the pages after the form, not the form's
    assert.match(waiting.body, /<script src="\/assets\/checkout\.pages\.[\w-]{12}\.js" defer>/);
    assert.match(waiting.body, /<h2 id="h-wait"[^>]*>Pay on the card page<\/h2>/);
    assert.match(waiting.body, new RegExp(`to pay<strong>UGX${NBSP}31,140</strong>\\. Your bank may ask`));
    assert.match(
      waiting.body,
      new RegExp(
        `<a class="button primary" href="${page.replace(/[.?]/g, '\\$&')}" data-card-page>Continue to the card page</a>`,
      ),
    );
    assert.doesNotMatch(waiting.body, /Resend prompt|PIN|prompt-countdown|target="_blank"/);
    assert.match(waiting.body, /<button type="submit">Pay another way<\/button>/);

    const back = await payOnPage(page, '5531886652142950');
    const landed = await getPage(h, back.pathname + back.search);
    assert.equal(landed.statusCode, 303);
    assert.equal(landed.headers.location, `/checkout/${id}/pay`);
    await waitForStatus(h, id, (s) => s.order_status === 'paid');
    const done = await getPage(h, `/checkout/${id}/pay`);
    assert.match(done.body, /You are registered/);
    assert.doesNotMatch(done.body, /close this tab/);
    const read = await readOrder(h, cards, order.id);
    assert.deepEqual([read.status, read.payment_method, read.total], ['paid', 'card', 31_140]);
  });

  test('an embedded checkout shows the card page as a new-tab link; the tab ends on "you may close this tab"', async () => {
    const id = await createSession(h, cards, { ui_mode: 'embedded', embed_origin: EMBED });
    const paid = await postForm(h, orderUrl(id), cardForm(cards));
    assert.equal(paid.statusCode, 303, paid.body);
    assert.equal(paid.headers.location, `/checkout/${id}/pay`, 'the frame never goes to the card page');
    const waiting = await getPage(h, `/checkout/${id}/pay`);
    const link =
      /<a class="button primary" href="([^"]+)" target="_blank" rel="noopener" data-card-page>Continue in a new tab<\/a>/.exec(
        waiting.body,
      );
    assert.ok(link, 'the new-tab link');
    assert.match(waiting.body, /data-poll="1"/, 'the frame keeps watching the order');
    assert.match(waiting.body, /When you have paid there, this window shows your order\./);
    const sw = await getPage(h, `/checkout/${id}/pay?lang=sw`);
    assert.match(sw.body, /Endelea kwenye kichupo kipya/);
    assert.match(sw.body, /Lipa kwenye ukurasa wa kadi/);

    // Back in its own tab before the payment is confirmed: the card page opens in that same tab.
    const early = await getPage(h, `/checkout/${id}/pay?tab=1`);
    assert.match(early.body, /data-card-page>Continue to the card page<\/a>/);
    assert.doesNotMatch(early.body, /target="_blank"/);
    const back = await payOnPage(link[1]!.replace(/&amp;/g, '&'), '4242424242424242');
    const landed = await getPage(h, back.pathname + back.search);
    assert.equal(landed.headers.location, `/checkout/${id}/pay?tab=1`);
    await waitForStatus(h, id, (s) => s.order_status === 'paid');
    const tab = await getPage(h, `/checkout/${id}/pay?tab=1`);
    assert.match(tab.body, /<p class="notice" data-close-tab>You may close this tab/);
    assert.doesNotMatch(tab.body, /data-close hidden>Done/);
    // Its language switch keeps the tab's note.
    const switchTo = /<a href="([^"]+)" hreflang="sw"/.exec(tab.body);
    assert.equal(switchTo?.[1]?.replace(/&amp;/g, '&'), `/checkout/${id}/pay?tab=1&lang=sw`);
    const inSwahili = await getPage(h, switchTo![1]!.replace(/&amp;/g, '&'));
    assert.match(inSwahili.body, /data-close-tab>Unaweza kufunga kichupo hiki/);
    // the frame's own page (no ?tab=1) is the confirmation that tells checkout.js
    const frame = await getPage(h, `/checkout/${id}/pay`);
    assert.match(frame.body, /data-success/);
    assert.doesNotMatch(frame.body, /close this tab/);
  });

  test('a declined card shows card words, and the buyer pays by mobile money instead', async () => {
    const id = await createSession(h, cards);
    await payOnPage(await payByCard(id, cardForm(cards)), '4000000000000002');
    await waitForStatus(h, id, (s) => s.attempt_status === 'failed');
    const failed = await getPage(h, `/checkout/${id}/pay`);
    assert.match(failed.body, /<h2 id="h-wait"[^>]*>The card was declined<\/h2>/);
    assert.match(failed.body, /Your bank did not approve the payment\./);
    // a way to pay, not a network, and no prompt promised
    assert.match(failed.body, /<legend>Pay with<\/legend>/);
    assert.match(failed.body, /data-prompt data-busy="Sending…">Pay<\/button>/);
    assert.match(
      failed.body,
      new RegExp(`value="card"[^]*?<span>Card<span class="detail">UGX${NBSP}31,140</span>`),
    );
    assert.match(
      failed.body,
      new RegExp(`value="momo"[^]*?<span>MTN Mobile Money<span class="detail">UGX${NBSP}31,050</span>`),
    );
    const sw = await getPage(h, `/checkout/${id}/pay?lang=sw`);
    assert.match(sw.body, /Kadi imekataliwa/);

    const momo = await postForm(h, `/checkout/${id}/retry`, {
      payment_method: 'momo',
      payment_phone: '0770000001',
    });
    assert.equal(momo.statusCode, 303, momo.body);
    assert.equal(momo.headers.location, `/checkout/${id}/pay`);
    await waitForStatus(h, id, (s) => s.order_status === 'paid');
    const order = await readOrder(h, cards, (await readSession(h, cards, id)).order!.id);
    assert.deepEqual([order.status, order.payment_method], ['paid', 'momo']);
  });

  test('"Pay another way" leaves the card page for mobile money, and back to card', async () => {
    const id = await createSession(h, cards);
    await payByCard(id, cardForm(cards));
    const switched = await postForm(h, `/checkout/${id}/switch`, {});
    assert.equal(switched.statusCode, 303, switched.body);
    const stopped = await getPage(h, `/checkout/${id}/pay`);
    assert.match(stopped.body, /action="\/checkout\/[^"]+\/retry"/);
    assert.doesNotMatch(stopped.body, /may still be on that phone/);
    const momo = await postForm(h, `/checkout/${id}/retry`, {
      payment_method: 'momo',
      payment_phone: '0770000009',
    });
    assert.equal(momo.headers.location, `/checkout/${id}/pay`);
    const waiting = await getPage(h, `/checkout/${id}/pay`);
    assert.match(waiting.body, /Approve the payment on your phone/);
    await postForm(h, `/checkout/${id}/switch`, {});
    const page = await payByCard(id, { payment_method: 'card', payment_phone: '' }, `/checkout/${id}/retry`);
    await payOnPage(page, '4242424242424242');
    await waitForStatus(h, id, (s) => s.order_status === 'paid');
    const order = await readOrder(h, cards, (await readSession(h, cards, id)).order!.id);
    assert.deepEqual([order.status, order.payment_method], ['paid', 'card']);
  });

  test('retrying by card from the failure screen goes to a new card page', async () => {
    const id = await createSession(h, cards);
    const first = await payByCard(id, cardForm(cards));
    await payOnPage(first, '4000000000009995');
    await waitForStatus(h, id, (s) => s.attempt_status === 'failed');
    const failed = await getPage(h, `/checkout/${id}/pay`);
    assert.match(failed.body, /Not enough money on the card/);
    const again = await payByCard(id, { payment_method: 'card', payment_phone: '' }, `/checkout/${id}/retry`);
    assert.notEqual(again, first);
  });
});
