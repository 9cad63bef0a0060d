// An owner's partial refund in Chromium at 360 px, on the two methods that pay a part back in a way
// of their own: a card order (paid on the simulator's card page with 3-D Secure, refunded through
// Flutterwave's refund API) and an M-Pesa order (a part goes back as a Daraja B2C payment, whose
// result comes to our route). Each time one runner of two is refunded and the order stays paid.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { organizations } from '../../src/organizations/organizations.schema.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import { startPayment } from '../../src/payments/start-payment.ts';
import { launchBrowser, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import { bearer, getToken, makeEvent, makePartner, type Harness } from '../helpers/harness.ts';
import { checkPage, signInPage } from './app-browser.ts';
import { makeMember } from './app-helpers.ts';

let h: Harness;
let app: string;
let browser: Browser;

before(async () => {
  ({ h } = await startListeningHarness());
  app = h.config.appUrl.origin;
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await h?.close();
});

const PHONE = { width: 360, height: 800 };

/** A shop with an owner and a two-runner order of a 10 km at `price`, not yet paid. */
async function twoRunnerOrder(currency: 'UGX' | 'KES', price: number, cards = false) {
  const partner = await makePartner(h);
  if (cards) {
    await h.service.ctx.database.db
      .update(organizations)
      .set({ optedInMethods: ['card'] })
      .where(eq(organizations.id, partner.organizationId));
  }
  const owner = await makeMember(h, partner.organizationId, 'owner');
  const event = await makeEvent(h, partner, {
    currency,
    ticket_types: [{ name: '10 km', price_minor: price, capacity: 100, distance_km: 10 }],
  });
  const token = await getToken(h, partner);
  const detail = await h.service.api.inject({ url: `/v1/events/${event.id}`, headers: bearer(token) });
  const ticketTypeId = detail.json().data.ticket_types[0].ticket_type_id as string;
  const created = await h.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: bearer(token),
    payload: {
      event_id: event.id,
      items: [
        { ticket_type_id: ticketTypeId, participant_name: 'Achieng Otieno' },
        { ticket_type_id: ticketTypeId, participant_name: 'Kamau Njoroge' },
      ],
      buyer: {
        name: 'Achieng Otieno',
        email: 'achieng@example.org',
        phone: currency === 'KES' ? '0712345678' : '0772555333',
      },
    },
  });
  assert.equal(created.statusCode, 201, created.body);
  const order = created.json().data as { id: string; order_code: string };
  return { partner, owner, token, order };
}

async function untilPaid(token: string, orderId: string) {
  const by = Date.now() + 30_000;
  for (;;) {
    const read = await h.service.api.inject({ url: `/v1/orders/${orderId}`, headers: bearer(token) });
    if (read.json().data.status === 'paid') return;
    assert.ok(Date.now() < by, 'paid within 30 s');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The owner refunds the first runner with a reason, and waits for the provider to confirm it. */
async function refundOneRunner(
  page: Page,
  orderId: string,
  code: string,
  { sentTo, confirmedBy }: { sentTo: string; confirmedBy: RegExp },
  shot: string,
) {
  await page.goto(`${app}/orders/${orderId}`);
  await page.getByRole('link', { name: 'Refund this order' }).click();
  await page.getByRole('heading', { name: `Refund order ${code}` }).waitFor();
  await page.getByLabel(/^Achieng Otieno, 10 km/).check();
  await page.getByLabel('Reason').fill('Injured in training');
  await page.getByRole('button', { name: 'Review the refund' }).click();
  await page.getByRole('heading', { name: /^Refund (UGX|KES).*\?$/ }).waitFor();
  assert.ok(await page.getByText('The order stays paid').isVisible());
  await page.getByRole('button', { name: /^Refund (UGX|KES)/ }).click();
  await page.getByText(sentTo).waitFor();
  const by = Date.now() + 30_000;
  while (!(await page.getByText(confirmedBy).isVisible())) {
    assert.ok(Date.now() < by, 'refund confirmed within 30 s');
    await page.waitForTimeout(300);
    await page.reload();
  }
  assert.ok(await page.getByText('Refunded: place cancelled').isVisible());
  await checkPage(page, shot);
}

describe('partial refunds in Chromium, by card and by M-Pesa', () => {
  test('card: paid on the card page with 3-D Secure, one runner refunded through Flutterwave', async () => {
    const { owner, token, order, partner } = await twoRunnerOrder('UGX', 35_000, true);
    await startPayment(h.service.ctx, {
      organizationId: partner.organizationId,
      orderId: order.id,
      method: 'card',
      phone: '',
    });
    const [attempt] = await h.service.ctx.database.db
      .select()
      .from(paymentAttempts)
      .where(eq(paymentAttempts.orderId, order.id));
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    const problems = watchProblems(page);
    // The buyer on the card page: the card, then the bank's one-time code.
    await page.goto(attempt!.redirectUrl!);
    await page.getByLabel(/card number/i).fill('5531886652142950');
    await page.getByLabel(/expiry/i).fill('12/30');
    await page.getByLabel(/cvv/i).fill('123');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByLabel(/one-time password|otp/i).fill('12345');
    await page.getByRole('button', { name: /confirm|submit|pay/i }).click();
    await untilPaid(token, order.id);

    await signInPage(page, app, owner);
    await refundOneRunner(
      page,
      order.id,
      order.order_code,
      { sentTo: 'The refund was sent to Flutterwave', confirmedBy: /Refund confirmed by Flutterwave/ },
      'refund-card-part',
    );
    assert.deepEqual(
      problems.filter((p) => !/status of 400/.test(p) && !p.includes('/flutterwave/')),
      [],
    );
    await context.close();
  });

  test('M-Pesa: paid from a Safaricom number, one runner paid back by B2C payment', async () => {
    const { owner, token, order } = await twoRunnerOrder('KES', 150_000);
    const pay = await h.service.api.inject({
      method: 'POST',
      url: `/v1/orders/${order.id}/pay`,
      headers: bearer(token),
      payload: { payment_method: 'mpesa', phone: '0711000001' },
    });
    assert.equal(pay.statusCode, 202, pay.body);
    await untilPaid(token, order.id);
    const context = await browser.newContext({ viewport: PHONE });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, owner);
    await refundOneRunner(
      page,
      order.id,
      order.order_code,
      { sentTo: 'The refund was sent to the network', confirmedBy: /Refund confirmed by the network/ },
      'refund-mpesa-part',
    );
    const read = await h.service.api.inject({ url: `/v1/orders/${order.id}`, headers: bearer(token) });
    const refunded = read.json().data as { status: string; refunded_total: number };
    assert.equal(refunded.status, 'paid');
    assert.ok(refunded.refunded_total > 0);
    assert.deepEqual(
      problems.filter((p) => !/status of 400/.test(p)),
      [],
    );
    await context.close();
  });
});
