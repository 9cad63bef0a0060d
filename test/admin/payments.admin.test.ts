// GET /admin/v1/organizations/{id}/payments/needs-refund: successful payments that bought nothing
// (a late success with no capacity left, a second payment for a paid order), per organization.
// The whole path from a late success to this list runs in test/payments/collect.test.ts; here the
// payments are written directly, to pin down the list's rules and shape.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { orders } from '../../src/orders/orders.schema.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import { newId } from '../../src/platform/ids.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import { admin, dataOf, errorOf } from './admin-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness();
});
after(() => h.close());

async function orderFor(partner: TestPartner) {
  const event = await makeEvent(h, partner);
  const [tt] = await h.service.ctx.database.db
    .select()
    .from(ticketTypes)
    .where(eq(ticketTypes.eventId, event.id));
  const res = await h.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: bearer(await getToken(h, partner)),
    payload: {
      event_id: event.id,
      items: [{ ticket_type_id: tt!.id, participant_name: 'Ann' }],
      buyer: { name: 'Ann', email: 'ann@example.org', phone: '0772123456' },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; order_code: string; total: number };
}

/** A payment attempt as the collector leaves it; `at` orders the successes. */
async function attempt(
  order: { id: string; total: number },
  partner: TestPartner,
  status: string,
  at: Date,
  method: 'momo' | 'airtel' = 'momo',
) {
  const reference = randomUUID();
  await h.service.ctx.database.db.insert(paymentAttempts).values({
    id: newId('pay'),
    reference,
    orderId: order.id,
    organizationId: partner.organizationId,
    method,
    msisdn: method === 'momo' ? '256770000001' : '256700000001',
    amount: order.total,
    currency: 'UGX',
    status,
    providerTransactionId: status === 'successful' ? `tx-${reference.slice(0, 8)}` : null,
    promptExpiresAt: at,
    createdAt: at,
    finalizedAt: status === 'successful' || status === 'failed' ? at : null,
  });
  return reference;
}

async function setOrder(orderId: string, values: Partial<typeof orders.$inferInsert>) {
  await h.service.ctx.database.db.update(orders).set(values).where(eq(orders.id, orderId));
}

function list(orgId: string) {
  return admin(h, { url: `/organizations/${orgId}/payments/needs-refund` });
}

describe('GET /admin/v1/organizations/{id}/payments/needs-refund', () => {
  test("lists late and second payments, the longest-waiting first, and nothing else nor another organization's", async () => {
    const partner = await makePartner(h);
    const t0 = Date.now();
    const at = (minutes: number) => new Date(t0 + minutes * 60_000);

    const late = await orderFor(partner); // paid after its hold lapsed, no capacity left
    await attempt(late, partner, 'failed', at(0));
    const lateRef = await attempt(late, partner, 'successful', at(3));
    await setOrder(late.id, { status: 'expired', paidAfterExpiry: true });

    const twice = await orderFor(partner); // paid, then paid again
    await attempt(twice, partner, 'successful', at(1));
    const secondRef = await attempt(twice, partner, 'successful', at(2), 'airtel');
    await setOrder(twice.id, { status: 'paid' });

    const fine = await orderFor(partner); // paid once: nothing to refund
    await attempt(fine, partner, 'successful', at(1));
    await setOrder(fine.id, { status: 'paid' });
    const waiting = await orderFor(partner); // still collecting
    await attempt(waiting, partner, 'timed_out', at(1));

    const stranger = await makePartner(h);
    const theirs = await orderFor(stranger);
    await attempt(theirs, stranger, 'successful', at(1));
    await setOrder(theirs.id, { status: 'expired', paidAfterExpiry: true });

    const data = dataOf(await list(partner.organizationId), 200);
    assert.equal(data.has_more, false);
    assert.deepEqual(
      data.payments.map((p: Record<string, unknown>) => [p.order_id, p.reason, p.payment_reference]),
      [
        [twice.id, 'duplicate_payment', secondRef],
        [late.id, 'paid_after_expiry', lateRef],
      ],
    );
    const first = data.payments[1];
    assert.deepEqual(first, {
      reason: 'paid_after_expiry',
      order_id: late.id,
      order_code: late.order_code,
      order_status: 'expired',
      event_id: first.event_id,
      amount_minor: late.total,
      currency: 'UGX',
      payment_method: 'momo',
      payer_phone: '256770000001',
      payment_reference: lateRef,
      provider_transaction_id: `tx-${lateRef.slice(0, 8)}`,
      confirmed_at: at(3).toISOString(),
      buyer: { name: 'Ann', email: 'ann@example.org', phone: '256772123456' },
    });
    assert.match(first.event_id, /^evt_/);

    const theirList = dataOf(await list(stranger.organizationId), 200);
    assert.deepEqual(
      theirList.payments.map((p: Record<string, unknown>) => p.order_id),
      [theirs.id],
    );
  });

  test('an organization with nothing to refund gets an empty list', async () => {
    const partner = await makePartner(h);
    assert.deepEqual(dataOf(await list(partner.organizationId), 200), { payments: [], has_more: false });
  });

  test('an unknown or malformed organization id is 404 not_found', async () => {
    errorOf(await list('org_DoesNotExist0000000000'), 404, 'not_found');
    errorOf(await list('not-an-id'), 404, 'not_found');
  });

  test('needs the admin key', async () => {
    const partner = await makePartner(h);
    const res = await admin(h, {
      url: `/organizations/${partner.organizationId}/payments/needs-refund`,
      key: null,
    });
    errorOf(res, 401, 'unauthorized');
  });
});
