// The buyer's confirmation email, kept in the development mailbox (tests have no SMTP_URL): an
// order paid through the simulator, or a free one paid at once, gets exactly one mail with its
// code, event, date in the event's zone, venue, runners, amount and method; a job that runs again
// sends nothing more; an order that is not paid gets none. And the message itself: plain text plus
// simple HTML, escaped, with nothing fetched from elsewhere.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { confirmationMessage, type ConfirmationFacts } from '../../src/confirmations/confirmation-message.ts';
import { listOrderMails } from '../../src/confirmations/order-mails.ts';
import { CONFIRMATION_JOB, sendPaidConfirmation } from '../../src/confirmations/send-confirmation.ts';
import { findEvent } from '../../src/events/events.ts';
import { DEV_MAIL_LIST_MAX, listDevMail, type DevMailRow } from '../../src/mail/mailbox.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { enqueueJob } from '../../src/platform/jobs.ts';
import { bearer, makeEvent, type Harness } from '../helpers/harness.ts';
import { flat } from '../site/site-helpers.ts';
import {
  createOrder,
  makeShop,
  payFreeOrder,
  payThroughSimulator,
  pump,
  pumpFor,
  readOrder,
  startWebhookHarness,
} from '../webhooks/webhook-helpers.ts';

let sim: Simulator;
let h: Harness;

before(async () => {
  sim = await startSimulator({ timeScale: 0.01 });
  h = await startWebhookHarness({ SIMULATOR_URL: sim.url, PAYMENT_TIME_SCALE: '0.01', RUN_JOBS: 'false' });
});
after(async () => {
  await h.close();
  await sim.close();
});

const db = () => h.service.ctx.database.db;

/** The kept mails whose subject names the order code. */
async function mailsFor(code: string): Promise<DevMailRow[]> {
  return (await listDevMail(db(), DEV_MAIL_LIST_MAX)).filter((m) => m.subject.includes(`(order ${code})`));
}

/** Runs jobs until the order's confirmation is kept, then a while longer; returns every one kept. */
async function confirmationsOf(code: string): Promise<DevMailRow[]> {
  await pump(h, async () => (await mailsFor(code)).length > 0);
  await pumpFor(h, 150);
  return mailsFor(code);
}

function assertSelfContained(html: string) {
  assert.doesNotMatch(
    html,
    /<script|<img|<link|<iframe|<style|url\(/i,
    'no scripts, images or fetched styles',
  );
  assert.doesNotMatch(html, /src="https?:/i, 'nothing loaded from elsewhere');
  // The only web links are the runners' ticket pages on the SITE host.
  for (const [, href] of html.matchAll(/href="(https?:[^"]*)"/gi)) {
    assert.match(href!, /^https?:\/\/[^/]+\/tickets\/[A-Za-z0-9_-]{32}$/, 'a ticket link');
  }
}

/** A runner's line of the text part, with their ticket's code and link below it. */
const TICKET_LINES = ' {2}Ticket code: [A-HJ-NP-TW-Z2-9]{8}\\n {2}https?://\\S+/tickets/[A-Za-z0-9_-]{32}';

describe('the confirmation after payment', () => {
  test('an order paid through the simulator gets one mail with its code, runner, amount and method', async () => {
    const shop = await makeShop(h);
    const { orderId } = await payThroughSimulator(h, sim, shop, 'momo');
    const order = await readOrder(h, shop, orderId);
    const code = String(order.order_code);

    const mails = await confirmationsOf(code);
    assert.equal(mails.length, 1, 'exactly one confirmation');
    const mail = mails[0]!;
    assert.equal(mail.to, 'ann@example.org');
    assert.equal(mail.subject, `Registration confirmed: Test Run (order ${code})`);
    assert.match(mail.text, /^Hello Ann,/);
    assert.match(mail.text, new RegExp(`^Order code: ${code}$`, 'm'));
    assert.match(mail.text, /^Event: Test Run$/m);
    assert.match(mail.text, /^When: \w+day,? \d{1,2} \w+ \d{4}(,| at) \d\d:\d\d \(Kampala time, EAT\)$/m);
    assert.doesNotMatch(mail.text, /^Where:/m, 'no venue line for an event without one');
    assert.match(mail.text, new RegExp(`^Registration:\\n- Ann: 10 km\\n${TICKET_LINES}$`, 'm'));
    assert.match(
      mail.text,
      new RegExp(
        `^Paid: UGX\u00a0${(order.total as number).toLocaleString('en-GB')} by MTN Mobile Money$`,
        'm',
      ),
    );
    assert.match(mail.text, /^Organizer: Org [0-9a-f]{6}$/m);
    assert.match(mail.text, /Questions\? Write to help@example\.org\./);
    assert.ok(mail.html, 'an HTML part');
    assert.match(mail.html, new RegExp(`<strong[^>]*>${code}</strong>`));
    assert.match(
      flat(mail.html),
      /<li style="margin-bottom:8px"><strong>Ann<\/strong>: 10 km<br>Ticket code:/,
    );
    assertSelfContained(mail.html);

    const rows = await listOrderMails(db(), shop.partner.organizationId, orderId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.kind, 'paid');
    assert.equal(rows[0]!.outcome, 'sent');
    assert.equal(rows[0]!.to, 'ann@example.org');
    assert.ok(rows[0]!.sentAt instanceof Date);
  });

  test('a free order, paid at once, is confirmed with its venue, date in the event zone and each runner', async () => {
    const shop = await makeShop(h);
    const event = await makeEvent(h, shop.partner, {
      name: 'Kololo Night Run',
      venue: 'Kololo Airstrip, Kampala',
      // 03:30 UTC is 06:30 in Kampala (UTC+3), a Saturday
      starts_at: '2027-03-13T03:30:00.000Z',
      ends_at: '2027-03-13T09:00:00.000Z',
    });
    const free = (await findEvent(db(), event.id))!.ticketTypes.find((t) => t.priceMinor === 0)!.id;
    const res = await h.service.api.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: bearer(shop.token),
      payload: {
        event_id: event.id,
        items: [
          { ticket_type_id: free, participant_name: 'Achieng Okoth' },
          { ticket_type_id: free, participant_name: "Brian O'Neil" },
        ],
        buyer: { name: 'Achieng Okoth', email: 'achieng@example.org', phone: '0772123456' },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const order = res.json().data as { id: string; order_code: string; status: string };
    assert.equal(order.status, 'paid');

    const [mail, ...more] = await confirmationsOf(order.order_code);
    assert.equal(more.length, 0);
    assert.equal(mail!.to, 'achieng@example.org');
    assert.match(mail!.text, /^When: Saturday,? 13 March 2027(,| at) 06:30 \(Kampala time, EAT\)$/m);
    assert.match(mail!.text, /^Where: Kololo Airstrip, Kampala$/m);
    assert.match(
      mail!.text,
      new RegExp(
        `^Registrations:\\n- Achieng Okoth: 5 km\\n${TICKET_LINES}\\n- Brian O'Neil: 5 km\\n${TICKET_LINES}$`,
        'm',
      ),
    );
    assert.match(mail!.text, /^Paid: Nothing: the registration is free$/m);
    assert.match(flat(mail!.html!), /<strong>Brian O&#39;Neil<\/strong>: 5 km<br>Ticket code:/);
  });

  test('the job run twice sends once, and an order not paid gets no mail', async () => {
    const shop = await makeShop(h);
    const order = await payFreeOrder(h, shop);
    const code = String((await readOrder(h, shop, order.id)).order_code);
    assert.equal((await confirmationsOf(code)).length, 1);

    // The same job again, as after a lost lease or a second order.paid: nothing more goes out.
    const payload = { organization_id: shop.partner.organizationId, order_id: order.id };
    await enqueueJob(db(), { kind: CONFIRMATION_JOB, payload, runAt: h.clock.now() });
    await pumpFor(h, 150);
    assert.equal(
      await sendPaidConfirmation(h.service.ctx, shop.partner.organizationId, order.id),
      'already_sent',
    );
    assert.equal((await mailsFor(code)).length, 1);
    assert.equal((await listOrderMails(db(), shop.partner.organizationId, order.id)).length, 1);

    const pending = await createOrder(h, shop, shop.paidTicket);
    assert.equal(pending.status, 'pending');
    assert.equal(
      await sendPaidConfirmation(h.service.ctx, shop.partner.organizationId, pending.id),
      'not_paid',
    );
    assert.deepEqual(await listOrderMails(db(), shop.partner.organizationId, pending.id), []);
  });
});

describe('the message', () => {
  const facts: ConfirmationFacts = {
    locale: null,
    buyerName: 'Ann <b>Bold</b>',
    buyerEmail: 'ann@example.org',
    orderCode: 'K7M2Q9XP',
    eventName: 'Run & <script>alert(1)</script>\r\nBcc: x@example.org',
    startsAt: new Date('2026-12-05T04:00:00.000Z'),
    timezone: 'Europe/London',
    venue: '',
    registrations: [{ participantName: 'Ann "Quick"', ticketLabel: '21 km' }],
    total: 45000,
    currency: 'UGX',
    paymentMethod: 'airtel',
    organizerName: 'Kampala Runners',
    supportEmail: '',
  };

  test('escapes every fact in the HTML part and keeps the subject on one line', () => {
    const message = confirmationMessage(facts);
    assert.doesNotMatch(message.subject, /[\r\n]/);
    assert.equal(
      message.subject,
      'Registration confirmed: Run & <script>alert(1)</script>  Bcc: x@example.org (order K7M2Q9XP)',
    );
    assert.match(message.html!, /Run &amp; &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(message.html!, /Hello Ann &lt;b&gt;Bold&lt;\/b&gt;,/);
    assert.match(message.html!, /<strong>Ann &quot;Quick&quot;<\/strong>: 21 km/);
    assertSelfContained(message.html!);
    assert.match(message.text, /^When: Saturday,? 5 December 2026(,| at) 04:00 \(London time, GMT\)$/m);
    assert.match(message.text, /^Paid: UGX\u00a045,000 by Airtel Money$/m);
    assert.doesNotMatch(message.text, /Questions\?/, 'no support line without an address');
  });
});
