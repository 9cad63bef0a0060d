// Refunding an order from the organizer app, on each network through the simulator: the owner
// asks on a confirmation page, the order page then shows it refunded with its refund, and the
// partner receives one verified order.refunded. A viewer reads the order but cannot refund (403,
// nothing changed); a refusal (already refunded) comes back on the order page.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import type { Harness } from '../helpers/harness.ts';
import {
  createEndpoint,
  payThroughSimulator,
  makeShop,
  pump,
  pumpFor,
  readOrder,
  startReceiver,
  startWebhookHarness,
  verifyDelivery,
  type Receiver,
  type Shop,
} from '../webhooks/webhook-helpers.ts';
import { paidTwoRunnerOrder } from '../refunds/refund-helpers.ts';
import { makeMember, signIn } from './app-helpers.ts';

let sim: Simulator;
let h: Harness;
let receiver: Receiver;

before(async () => {
  sim = await startSimulator({ timeScale: 0.01 });
  h = await startWebhookHarness({ SIMULATOR_URL: sim.url, PAYMENT_TIME_SCALE: '0.01', RUN_JOBS: 'false' });
  receiver = await startReceiver();
});
after(async () => {
  await h.close();
  await sim.close();
  await receiver.close();
});

/** A paid order of one 10 km ticket, paid from the simulator's success number on `method`. */
const paidOrder = async (shop: Shop, method: 'momo' | 'airtel') =>
  (await payThroughSimulator(h, sim, shop, method)).orderId;

for (const method of ['momo', 'airtel'] as const) {
  describe(`refunding from the app, paid with ${method}`, () => {
    test('the owner confirms, the order shows refunded, and the partner gets a verified order.refunded', async () => {
      const shop = await makeShop(h);
      const organizationId = shop.partner.organizationId;
      const endpoint = await createEndpoint(h, organizationId, receiver.url, ['order.refunded']);
      const owner = await signIn(h, await makeMember(h, organizationId, 'owner'));
      const orderId = await paidOrder(shop, method);

      const page = await owner.get(`/orders/${orderId}`);
      assert.match(
        page.body,
        new RegExp(`<a class="button" href="/orders/${orderId}/refund">Refund this order</a>`),
      );
      const ask = await owner.get(`/orders/${orderId}/refund`);
      assert.equal(ask.statusCode, 200);
      assert.match(ask.body, /Runners whose places go back/);
      const review = await owner.post(`/orders/${orderId}/refund`, {
        step: 'review',
        reason: 'Event cancelled',
      });
      assert.equal(review.statusCode, 200);
      assert.match(review.body, /This cannot be undone/);
      assert.match(review.body, /The order is refunded in full/);
      const done = await owner.post(`/orders/${orderId}/refund`, {
        step: 'confirm',
        reason: 'Event cancelled',
      });
      assert.equal(done.statusCode, 303, done.body.slice(0, 300));
      assert.equal(done.headers.location, `/orders/${orderId}?refund=requested`);

      const after = await owner.get(`/orders/${orderId}?refund=requested`);
      assert.match(after.body, /The refund was sent to the network/);
      assert.match(after.body, /<dt>Status<\/dt>\s*<dd>Refunded<\/dd>/);
      assert.match(after.body, /<h2>Refunds<\/h2>/);
      assert.match(after.body, /Refund confirmed by the network/);
      assert.doesNotMatch(after.body, /Refund this order/, 'no second refund offered');

      const delivered = () =>
        receiver.requests.filter(
          (r) => JSON.parse(r.body).data?.id === orderId && JSON.parse(r.body).type === 'order.refunded',
        );
      await pump(h, () => delivered().length > 0);
      await pumpFor(h, 100);
      assert.equal(delivered().length, 1);
      const payload = verifyDelivery(endpoint.secret, delivered()[0]!, h.clock.now());
      assert.equal(payload.data.status, 'refunded');
      assert.equal(payload.data.refund.method, method);

      // Asked again (a second tab): refused on the order page, nothing more sent.
      const again = await owner.post(`/orders/${orderId}/refund`, { step: 'confirm', reason: 'Again' });
      assert.equal(again.statusCode, 409);
      assert.match(again.body, /The order was refunded already/);
      assert.equal(sim.refunds().length > 0, true);
    });
  });
}

describe('who may refund', () => {
  test('a viewer and a developer read the order but cannot refund it: 403, and it stays paid', async () => {
    const shop = await makeShop(h);
    const organizationId = shop.partner.organizationId;
    const orderId = await paidOrder(shop, 'momo');
    for (const role of ['viewer', 'developer'] as const) {
      const agent = await signIn(h, await makeMember(h, organizationId, role));
      const page = await agent.get(`/orders/${orderId}`);
      assert.equal(page.statusCode, 200);
      assert.doesNotMatch(page.body, /Refund this order/);
      assert.equal((await agent.get(`/orders/${orderId}/refund`)).statusCode, 403);
      const post = await agent.post(`/orders/${orderId}/refund`, {});
      assert.equal(post.statusCode, 403);
      assert.match(post.body, /Your role cannot do this/);
    }
    assert.equal((await readOrder(h, shop, orderId)).status, 'paid');
  });
});

describe('refunding runners or an amount from the app', () => {
  test('the owner ticks a runner, reviews what goes back, confirms; the page marks her refunded', async () => {
    const shop = await makeShop(h);
    const owner = await signIn(h, await makeMember(h, shop.partner.organizationId, 'owner'));
    const { orderId, regs } = await paidTwoRunnerOrder(h, sim, shop, { method: 'momo' });
    const [ann, bob] = regs;
    const back = ann!.priceMinor + ann!.feeMinor;

    const form = await owner.get(`/orders/${orderId}/refund`);
    assert.equal(form.statusCode, 200);
    assert.match(form.body, new RegExp(`name="runners"\\s+value="${ann!.id}"`));
    assert.match(form.body, /Ann Akello, 10 km:\s*<span class="nowrap">UGX\u00a0[\d,]+<\/span> back/);

    const fields = { runners: [ann!.id], amount: '', reason: 'Injured in training' };
    const review = await owner.post(`/orders/${orderId}/refund`, { ...fields, step: 'review' });
    assert.equal(review.statusCode, 200);
    assert.match(review.body, new RegExp(`<h1>Refund UGX\u00a0${back.toLocaleString('en')}\\?</h1>`));
    assert.match(review.body, /<li>Ann Akello, 10 km<\/li>/);
    assert.match(review.body, /The order stays paid/);
    assert.equal((await readOrder(h, shop, orderId)).refunded_total, 0, 'nothing written by the review');

    const done = await owner.post(`/orders/${orderId}/refund`, { ...fields, step: 'confirm' });
    assert.equal(done.statusCode, 303, done.body.slice(0, 300));
    const order = await readOrder(h, shop, orderId);
    assert.equal(order.status, 'paid');
    assert.equal(order.refunded_total, back);
    const page = await owner.get(`/orders/${orderId}`);
    assert.match(
      page.body,
      /<h3 id="runner-1">Ann Akello<\/h3>[\s\S]*?<strong>Refunded<\/strong>: place cancelled/,
    );
    assert.match(
      page.body,
      /<h3 id="runner-2">Bob Okello<\/h3>[\s\S]*?<dt>Registration<\/dt>\s*<dd>\s*Confirmed\s*<\/dd>/,
    );
    assert.match(
      page.body,
      /<td data-label="Of">Ann Akello<\/td>[\s\S]*?<td data-label="Reason">Injured in training<\/td>/,
    );
    assert.match(page.body, /<dt>Refunded<\/dt>/);
    assert.match(page.body, /Refund this order/, 'the rest may still be refunded');
    // The audit log says who asked, how much, for whom and why, in words.
    const audit = await owner.get('/audit-log');
    assert.match(audit.body, /Runners: Ann Akello</);
    assert.match(audit.body, /Reason given: Injured in training</);
    // Her box can no longer be ticked.
    const again = await owner.get(`/orders/${orderId}/refund`);
    assert.doesNotMatch(again.body, new RegExp(`value="${ann!.id}"`));
    assert.match(again.body, new RegExp(`value="${bob!.id}"`));
  });

  test('what is wrong comes back on the form, and nothing is refunded', async () => {
    const shop = await makeShop(h);
    const owner = await signIn(h, await makeMember(h, shop.partner.organizationId, 'owner'));
    const { orderId } = await paidTwoRunnerOrder(h, sim, shop, { method: 'momo' });
    const typo = await owner.post(`/orders/${orderId}/refund`, { step: 'review', amount: 'ten', reason: '' });
    assert.equal(typo.statusCode, 400);
    assert.match(typo.body, /There is a problem/);
    assert.match(typo.body, /Enter the amount as a number of UGX/);
    assert.match(typo.body, /Enter the reason for the refund/);
    const tooMuch = await owner.post(`/orders/${orderId}/refund`, {
      step: 'confirm',
      amount: '99999999',
      reason: 'Too much',
    });
    assert.equal(tooMuch.statusCode, 422);
    assert.match(tooMuch.body, /more than the [\d]+ left to refund/);
    assert.equal((await readOrder(h, shop, orderId)).refunded_total, 0);
    assert.equal(sim.refunds().filter((r) => r.reference && r.amount === '99999999').length, 0);
  });
});
