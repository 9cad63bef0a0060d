// A paid order of two runners for the refund tests: created through the partner API, paid from a
// simulator test number and settled by reconciling it (the harness runs no jobs).
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { registrations } from '../../src/orders/orders.schema.ts';
import { reconcileAttempt } from '../../src/payments/collect.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import type { PaymentMethod } from '../../src/payments/provider.ts';
import { testPhoneNumber } from '../../src/payments/simulator/scenarios.ts';
import type { Simulator } from '../../src/payments/simulator/simulator.ts';
import { bearer, type Harness } from '../helpers/harness.ts';
import { readOrder, type Shop } from '../webhooks/webhook-helpers.ts';

/** A paid order of two runners (Ann Akello, Bob Okello) on `ticketTypeId`, paid from test number `code`. */
export async function paidTwoRunnerOrder(
  h: Harness,
  sim: Simulator,
  shop: Shop,
  {
    method,
    code = '01',
    ticketTypeId = shop.paidTicket,
  }: { method: PaymentMethod; code?: string; ticketTypeId?: string },
) {
  const db = () => h.service.ctx.database.db;
  const created = await h.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: bearer(shop.token),
    payload: {
      event_id: shop.eventId,
      items: [
        { ticket_type_id: ticketTypeId, participant_name: 'Ann Akello' },
        { ticket_type_id: ticketTypeId, participant_name: 'Bob Okello' },
      ],
      buyer: { name: 'Ann Akello', email: 'ann@example.org', phone: '0772123456' },
    },
  });
  assert.equal(created.statusCode, 201, created.body);
  const orderId = created.json().data.id as string;
  const paid = await h.service.api.inject({
    method: 'POST',
    url: `/v1/orders/${orderId}/pay`,
    headers: bearer(shop.token),
    payload: { payment_method: method, phone: testPhoneNumber(method, code) },
  });
  assert.equal(paid.statusCode, 202, paid.body);
  await Promise.allSettled([...h.service.ctx.gateway.inflight]);
  const [attempt] = await db().select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId));
  sim.approve(attempt!.reference);
  assert.equal(await reconcileAttempt(h.service.ctx, attempt!.reference), null);
  const order = await readOrder(h, shop, orderId);
  assert.equal(order.status, 'paid');
  const regs = await db()
    .select()
    .from(registrations)
    .where(eq(registrations.orderId, orderId))
    .orderBy(registrations.position);
  return { orderId, total: order.total as number, regs };
}
