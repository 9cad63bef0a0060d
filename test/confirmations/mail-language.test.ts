// Mails follow the language of the checkout the order was placed in: the order records it (en or
// sw; none for a partner's server order, which gets English), and the confirmation and a
// transfer's two mails are written in it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { mailTransfer } from '../../src/confirmations/index.ts';
import { loadConfirmation } from '../../src/confirmations/send-confirmation.ts';
import { listDevMail, DEV_MAIL_LIST_MAX } from '../../src/mail/mailbox.ts';
import { orders, registrations } from '../../src/orders/orders.schema.ts';
import { transferPlace } from '../../src/tickets/index.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { createSession, fullForm, makeRace, readSession, type Race } from '../site/site-helpers.ts';
import { freeOrderOf } from '../tickets/ticket-helpers.ts';
import { makeShop } from '../webhooks/webhook-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness({ env: { RUN_JOBS: 'false' } });
});
after(() => h.close());

const db = () => h.service.ctx.database.db;

/** A free order placed on the hosted checkout page, in the language `query` or the header asks. */
async function checkoutOrder(race: Race, query: string, headers: Record<string, string> = {}) {
  const id = await createSession(h, race);
  const res = await h.service.site.inject({
    method: 'POST',
    url: `/checkout/${id}/order${query}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fullForm(race, { ticket: 'free' })).toString(),
  });
  assert.equal(res.statusCode, 303, res.body.slice(0, 300));
  const session = await readSession(h, race, id);
  const [order] = await db().select().from(orders).where(eq(orders.id, session.order!.id));
  return order!;
}

describe('the checkout language', () => {
  test('is recorded on the order: ?lang=sw, Accept-Language, or none for a server order', async () => {
    const race = await makeRace(h);
    assert.equal((await checkoutOrder(race, '?lang=sw')).locale, 'sw');
    assert.equal((await checkoutOrder(race, '', { 'accept-language': 'sw-KE,sw;q=0.9' })).locale, 'sw');
    assert.equal((await checkoutOrder(race, '', { 'accept-language': 'en-GB' })).locale, 'en');
    const shop = await makeShop(h);
    const headless = await freeOrderOf(h, shop, ['Okello']);
    const [row] = await db().select().from(orders).where(eq(orders.id, headless.id));
    assert.equal(row!.locale, null);
  });

  test('the confirmation is written in it, English without one', async () => {
    const race = await makeRace(h);
    const sw = await checkoutOrder(race, '?lang=sw');
    const swahili = (await loadConfirmation(h.service.ctx, sw.organizationId, sw.id))!.message;
    assert.equal(swahili.subject, `Usajili umethibitishwa: Kampala City 10K (oda ${sw.orderCode})`);
    assert.match(swahili.text, /^Habari Amina Nakato,$/m);
    assert.match(swahili.text, /^Namba ya oda: /m);
    assert.match(swahili.text, /^ {2}Namba ya tiketi: [A-Z0-9]{8}$/m);
    assert.match(swahili.text, /Saa za Kampala, EAT/);
    assert.match(swahili.html!, /<html lang="sw">/);
    assert.doesNotMatch(swahili.text, /Registration confirmed|Ticket code/);

    const en = await checkoutOrder(race, '?lang=en');
    const english = (await loadConfirmation(h.service.ctx, en.organizationId, en.id))!.message;
    assert.equal(english.subject, `Registration confirmed: Kampala City 10K (order ${en.orderCode})`);
    assert.match(english.text, /^Hello Amina Nakato,$/m);
    assert.match(english.html!, /<html lang="en">/);
  });

  test("a transfer's mails are written in it", async () => {
    const race = await makeRace(h);
    const order = await checkoutOrder(race, '?lang=sw');
    const [reg] = await db().select().from(registrations).where(eq(registrations.orderId, order.id));
    const actor = { memberId: null, label: 'operator', ip: null };
    const outcome = await transferPlace(h.service.ctx, {
      actor,
      organizationId: order.organizationId,
      registrationId: reg!.id,
      runner: {
        participant_name: 'Wanjiru Kamau',
        email: 'wanjiru@example.org',
        answers: reg!.answers,
      },
    });
    assert.ok('done' in outcome, JSON.stringify(outcome));
    const sent = await mailTransfer(h.service.ctx, outcome.done, actor);
    assert.deepEqual(
      sent.map((m) => [m.kind, m.to, m.outcome]),
      [
        ['transfer_away', 'amina@example.org', 'sent'],
        ['transfer_to', 'wanjiru@example.org', 'sent'],
      ],
    );
    const mails = await listDevMail(db(), DEV_MAIL_LIST_MAX);
    const away = mails.find((m) => m.to === 'amina@example.org' && m.subject.startsWith('Nafasi'))!;
    assert.equal(away.subject, `Nafasi imehamishwa: Kampala City 10K (oda ${order.orderCode})`);
    assert.match(away.text, /imehamishwa|amehamisha/);
    assert.doesNotMatch(away.text, /Wanjiru/);
    const toNew = mails.find((m) => m.to === 'wanjiru@example.org')!;
    assert.equal(toNew.subject, 'Tiketi yako ya Kampala City 10K');
    assert.match(toNew.text, /^Habari Wanjiru Kamau,$/m);
    assert.match(toNew.text, new RegExp(`^Namba ya tiketi: ${outcome.done.ticket.code}$`, 'm'));
  });
});
