// The demo organization shows every payment method: cards are turned on, so its UGX events offer
// MTN, Airtel and card, and its Nairobi race, in KES, offers M-Pesa and card, priced in whole
// shillings; an order for it is paid from M-Pesa's sandbox success number with the demo client's
// own credentials. A service that takes no card seeds no card.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedDemo, type DemoCredentials } from '../../src/demo/seed-demo.ts';
import { findOrganization } from '../../src/organizations/organizations.ts';
import { PAYMENT_METHOD_REGISTRY } from '../../src/payments/index.ts';
import { bearer, getToken, startHarness, TEST_ADMIN_KEY, type Harness } from '../helpers/harness.ts';

let h: Harness;
let demo: DemoCredentials;
let token: string;

type Json = Record<string, unknown>;
interface TicketType {
  ticket_type_id: string;
  price_minor: number;
  laces_fee_minor: number;
  total_minor: number;
  airtel: { laces_fee_minor: number; total_minor: number } | null;
  mpesa: { laces_fee_minor: number; total_minor: number } | null;
  card: { laces_fee_minor: number; total_minor: number } | null;
}

before(async () => {
  h = await startHarness();
  const seeded = await seedDemo(h.service.ctx, TEST_ADMIN_KEY);
  assert.ok(seeded, 'seeded into the empty database');
  demo = seeded;
  token = await getToken(h, {
    organizationId: demo.organization_id,
    clientId: demo.client_id,
    clientSecret: demo.client_secret,
    publishableKey: demo.publishable_key,
  });
});
after(() => h?.close());

async function get(url: string): Promise<Json> {
  const res = await h.service.api.inject({ url, headers: bearer(token) });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as Json;
}

async function eventByHandle(handle: string): Promise<Json> {
  const page = await get('/v1/events');
  const item = (page.events as Json[]).find((e) => e.handle === handle);
  assert.ok(item, `${handle} is on sale`);
  return get(`/v1/events/${String(item.event_id)}`);
}

describe('the demo organization', () => {
  test('turned cards on: its UGX events offer MTN, Airtel and card, and no M-Pesa', async () => {
    assert.equal(demo.event_ids.length, 4);
    const org = await findOrganization(h.service.ctx.database.db, demo.organization_id);
    assert.deepEqual(org!.optedInMethods, ['card']);
    const event = await eventByHandle('entebbe-lakeside-10k');
    assert.equal(event.currency, 'UGX');
    assert.deepEqual(event.payment_methods, ['momo', 'airtel', 'card']);
    for (const tt of event.ticket_types as TicketType[]) {
      assert.equal(tt.mpesa, null);
      assert.ok(tt.airtel, 'priced for Airtel');
      if (tt.price_minor === 0) continue;
      // the default 3.8 % card fee
      const fee = Math.round((tt.price_minor * 380) / 10_000);
      assert.deepEqual(tt.card, { laces_fee_minor: fee, total_minor: tt.price_minor + fee });
    }
  });

  test('its Nairobi race is in KES, offers M-Pesa and card, in whole shillings', async () => {
    const event = await eventByHandle('nairobi-arboretum-10k');
    assert.equal(event.currency, 'KES');
    assert.equal(event.timezone, 'Africa/Nairobi');
    assert.deepEqual(event.payment_methods, ['mpesa', 'card']);
    const types = event.ticket_types as TicketType[];
    assert.ok(types.length >= 1);
    for (const tt of types) {
      assert.ok(tt.price_minor > 0 && tt.price_minor % 100 === 0, `whole shillings: ${tt.price_minor}`);
      assert.equal(tt.airtel, null);
      // The event's default method is M-Pesa: the ticket type's own figures are M-Pesa's.
      assert.deepEqual(tt.mpesa, { laces_fee_minor: tt.laces_fee_minor, total_minor: tt.total_minor });
      assert.equal(tt.total_minor % 100, 0, `a whole-shilling total: ${tt.total_minor}`);
      assert.ok(
        tt.card && tt.card.total_minor % 100 === 0,
        `a whole-shilling card total: ${tt.card?.total_minor}`,
      );
    }
  });

  test("an order for the Nairobi race is paid with M-Pesa from the sandbox's success number", async () => {
    const event = await eventByHandle('nairobi-arboretum-10k');
    const [tt] = event.ticket_types as TicketType[];
    const created = await h.service.api.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: bearer(token),
      payload: {
        event_id: event.event_id,
        items: [{ ticket_type_id: tt!.ticket_type_id, participant_name: 'Wanjiru Kamau' }],
        buyer: { name: 'Wanjiru Kamau', email: 'wanjiru@example.org', phone: '0712 345678' },
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const order = created.json().data as Json;
    assert.equal(order.total, tt!.total_minor);
    const paying = await h.service.api.inject({
      method: 'POST',
      url: `/v1/orders/${String(order.id)}/pay`,
      headers: bearer(token),
      payload: { payment_method: 'mpesa', phone: '0711000001' },
    });
    assert.equal(paying.statusCode, 202, paying.body);
    const deadline = Date.now() + 20_000;
    let read = await get(`/v1/orders/${String(order.id)}`);
    while (read.status !== 'paid' && Date.now() < deadline) {
      await h.service.jobs.runDue();
      await new Promise((resolve) => setTimeout(resolve, 30));
      read = await get(`/v1/orders/${String(order.id)}`);
    }
    assert.equal(read.status, 'paid', JSON.stringify(read));
    assert.equal(read.payment_method, 'mpesa');
  });
});

describe('the demo on a service that takes no card', () => {
  test('turns no card on', async () => {
    const plain = await startHarness({
      service: { paymentMethods: PAYMENT_METHOD_REGISTRY.filter((m) => m.key !== 'card') },
    });
    try {
      const seeded = await seedDemo(plain.service.ctx, TEST_ADMIN_KEY);
      const org = await findOrganization(plain.service.ctx.database.db, seeded!.organization_id);
      assert.deepEqual(org!.optedInMethods, []);
    } finally {
      await plain.close();
    }
  });
});
