// Resending a paid order's confirmation email from the organizer app: an owner's resend puts a
// second mail in the development mailbox, the order's timeline shows both and the audit log the
// resend; a second within a minute is refused (429) and one after it goes; a failed send (in
// production without SMTP_URL) says so on the page. Viewers and developers see no button and get 403; an unpaid order's resend is
// refused on its page (409). Nothing refused sends or records anything.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listAuditEvents } from '../../src/audit/audit-log.ts';
import { listOrderMails } from '../../src/confirmations/order-mails.ts';
import { DEV_MAIL_LIST_MAX, listDevMail } from '../../src/mail/mailbox.ts';
import { makeEvent, makePartner, startHarness, type Harness, type TestPartner } from '../helpers/harness.ts';
import { pump } from '../webhooks/webhook-helpers.ts';
import { locationOf, makeMember, makeOrder, signIn, textOf, type Agent } from './app-helpers.ts';

let h: Harness;
let partner: TestPartner;
let eventId: string;
let owner: Agent;
let ownerEmail: string;

before(async () => {
  h = await startHarness({ env: { WEBHOOK_TIME_SCALE: '0.0001' } });
  partner = await makePartner(h);
  eventId = (await makeEvent(h, partner, { name: 'Entebbe Lakeside 10K' })).id;
  const member = await makeMember(h, partner.organizationId, 'owner');
  ownerEmail = member.email;
  owner = await signIn(h, member);
});
after(() => h.close());

const db = () => h.service.ctx.database.db;
const mailsOf = (orderId: string) => listOrderMails(db(), partner.organizationId, orderId);
const kept = async (code: string) =>
  (await listDevMail(db(), DEV_MAIL_LIST_MAX)).filter((m) => m.subject.includes(`(order ${code})`));
const resends = async () =>
  (await listAuditEvents(db(), partner.organizationId, { limit: 100 })).rows.filter(
    (e) => e.action === 'order.confirmation_resent',
  );

/** A free order (paid at once) whose first confirmation has gone out. */
async function confirmedOrder(email: string) {
  const order = await makeOrder(h, partner, {
    eventId,
    buyer: { name: 'Nakato Sarah', email, phone: '0772123456' },
  });
  await pump(h, async () => (await mailsOf(order.id)).length > 0);
  return order;
}

describe('resending the confirmation email', () => {
  test('an owner resends: a second mail, both in the timeline, the resend audited', async () => {
    const order = await confirmedOrder('nakato@example.org');
    const page = await owner.get(`/orders/${order.id}`);
    assert.equal(page.statusCode, 200);
    assert.match(
      page.body,
      new RegExp(`<form method="post" action="/orders/${order.id}/resend-confirmation"`),
    );
    assert.match(textOf(page.body), /Confirmation email sent to nakato@example\.org/);

    const res = await owner.post(`/orders/${order.id}/resend-confirmation`);
    assert.equal(res.statusCode, 303, res.body.slice(0, 300));
    assert.equal(locationOf(res), `/orders/${order.id}?confirmation=sent`);
    const mails = await kept(order.order_code);
    assert.equal(mails.length, 2, 'the first mail and the resend');
    assert.ok(
      mails.every((m) => m.to === 'nakato@example.org' && m.text.includes('- Nakato Sarah Junior: 5 km')),
    );

    const after = textOf((await owner.get(locationOf(res))).body);
    assert.match(after, /The confirmation email was sent again to nakato@example\.org\./);
    assert.match(
      after,
      new RegExp(`Confirmation email resent to nakato@example\\.org by ${ownerEmail.replace('.', '\\.')}`),
    );
    assert.deepEqual(
      (await mailsOf(order.id)).map((m) => [m.kind, m.outcome]),
      [
        ['paid', 'sent'],
        ['resent', 'sent'],
      ],
    );
    const [entry] = (await resends()).filter((e) => e.targetId === order.id);
    assert.ok(entry, 'audited');
    assert.equal(entry.actorLabel, ownerEmail);
    assert.equal(entry.targetType, 'order');
    assert.deepEqual(entry.details, { order_code: order.order_code });
  });

  test('a second resend within a minute is refused with 429, and one after the minute goes', async () => {
    const order = await confirmedOrder('pace@example.org');
    assert.equal((await owner.post(`/orders/${order.id}/resend-confirmation`)).statusCode, 303);
    const [audited, sent] = [(await resends()).length, (await kept(order.order_code)).length];

    h.clock.advance(30_000);
    const refused = await owner.post(`/orders/${order.id}/resend-confirmation`);
    assert.equal(refused.statusCode, 429, refused.body.slice(0, 300));
    assert.equal(refused.headers['retry-after'], '30');
    assert.match(textOf(refused.body), /resent less than a minute ago\. Try again in 30 seconds\./);
    assert.equal((await kept(order.order_code)).length, sent, 'nothing sent');
    assert.equal((await resends()).length, audited, 'nothing audited');
    assert.equal((await mailsOf(order.id)).length, 2, 'nothing recorded');

    h.clock.advance(30_000);
    const again = await owner.post(`/orders/${order.id}/resend-confirmation`);
    assert.equal(again.statusCode, 303, again.body.slice(0, 300));
    assert.equal((await kept(order.order_code)).length, sent + 1);
  });

  test('two resends at once send one mail: the other is refused with 429', async () => {
    const order = await confirmedOrder('twice@example.org');
    const second = await signIn(h, await makeMember(h, partner.organizationId, 'owner'));
    const answers = await Promise.all(
      [owner, second].map((agent) => agent.post(`/orders/${order.id}/resend-confirmation`)),
    );
    assert.deepEqual(answers.map((r) => r.statusCode).sort(), [303, 429]);
    assert.equal((await kept(order.order_code)).length, 2, 'the first mail and one resend');
    assert.equal((await mailsOf(order.id)).filter((m) => m.kind === 'resent').length, 1);
  });
});

describe('a send that fails (production without SMTP_URL: every send fails with not_configured)', () => {
  let prod: Harness;
  before(async () => {
    prod = await startHarness({ env: { NODE_ENV: 'production', WEBHOOK_TIME_SCALE: '0.0001' } });
  });
  after(() => prod.close());

  test('an admin may resend; a send that fails says so on the page and in the timeline', async () => {
    const shop = await makePartner(prod);
    const event = await makeEvent(prod, shop, { name: 'Jinja Source 5K' });
    const order = await makeOrder(prod, shop, {
      eventId: event.id,
      buyer: { name: 'Nakato Sarah', email: 'fails@example.org', phone: '0772123456' },
    });
    const mails = () => listOrderMails(prod.service.ctx.database.db, shop.organizationId, order.id);
    await pump(prod, async () => (await mails()).length > 0);
    const admin = await signIn(prod, await makeMember(prod, shop.organizationId, 'admin'));
    const res = await admin.post(`/orders/${order.id}/resend-confirmation`);
    assert.equal(res.statusCode, 303, res.body.slice(0, 300));
    assert.equal(locationOf(res), `/orders/${order.id}?confirmation=failed`);
    const text = textOf((await admin.get(locationOf(res))).body);
    assert.match(text, /The confirmation email could not be sent/);
    assert.match(
      text,
      /Confirmation email resent to fails@example\.org by admin-[0-9a-f]+@example\.org not sent: not_configured/,
    );
    assert.deepEqual(
      (await mails()).map((m) => m.outcome),
      ['failed', 'failed'],
      'the first mail and the resend, neither sent',
    );
  });
});

describe('who may resend, and what', () => {
  test('a viewer and a developer see no button and are refused with 403, nothing sent', async () => {
    const order = await confirmedOrder('roles@example.org');
    for (const role of ['viewer', 'developer'] as const) {
      const agent = await signIn(h, await makeMember(h, partner.organizationId, role));
      const page = await agent.get(`/orders/${order.id}`);
      assert.equal(page.statusCode, 200);
      assert.doesNotMatch(page.body, /Resend confirmation email/);
      assert.match(
        textOf(page.body),
        /Confirmation email sent to roles@example\.org/,
        'the timeline is for all',
      );
      const res = await agent.post(`/orders/${order.id}/resend-confirmation`);
      assert.equal(res.statusCode, 403);
      assert.match(res.body, /Your role cannot do this/);
    }
    assert.equal((await mailsOf(order.id)).length, 1);
    assert.equal((await kept(order.order_code)).length, 1);
  });

  test("an unpaid order's resend is refused on its page with 409, nothing sent", async () => {
    const order = await makeOrder(h, partner, {
      eventId,
      buyer: { name: 'Unpaid Buyer', email: 'unpaid@example.org', phone: '0772123456' },
      paid: true, // a paid ticket type: the order waits for its payment
    });
    const page = await owner.get(`/orders/${order.id}`);
    assert.doesNotMatch(page.body, /Resend confirmation email/);
    const audited = (await resends()).length;
    const res = await owner.post(`/orders/${order.id}/resend-confirmation`);
    assert.equal(res.statusCode, 409, res.body.slice(0, 300));
    assert.match(
      textOf(res.body),
      /Only a paid order's confirmation email can be resent; this order is pending\./,
    );
    assert.deepEqual(await mailsOf(order.id), []);
    assert.equal((await kept(order.order_code)).length, 0);
    assert.equal((await resends()).length, audited);
  });
});
