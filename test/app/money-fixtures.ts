// An event with money that moved in every way the money page tells apart, written straight into
// the tables with known figures: an MTN MoMo order of two runners with a donation, an Airtel Money
// order refunded whole, the MTN order's 5 km runner refunded and then an amount of goodwill, and a
// payment that came after its hold ended. Used by the money page's tests, over HTTP and in Chromium.
import { randomUUID } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import { ticketTypesOf } from '../../src/events/events.ts';
import { orders, registrations } from '../../src/orders/orders.schema.ts';
import { paymentAttempts, refunds } from '../../src/payments/payments.schema.ts';
import { newId, randomString } from '../../src/platform/ids.ts';
import { makeEvent, type Harness, type TestPartner } from '../helpers/harness.ts';

export interface Money {
  db: Harness['service']['ctx']['database']['db'];
  organizationId: string;
  eventId: string;
}

export interface Runner {
  ticketTypeId: string;
  price: number;
  fee: number;
}

/**
 * A paid order of these runners, its successful payment, and its registrations' ids; a card
 * payment (paid on the provider's page) keeps no number: pass msisdn ''.
 */
export async function paidOrder(
  m: Money,
  options: {
    method: 'momo' | 'airtel' | 'card';
    msisdn?: string;
    runners: Runner[];
    donation?: number;
    status?: 'paid' | 'expired';
    paidAfterExpiry?: boolean;
    providerId: string;
    at: Date;
  },
) {
  const id = newId('ord');
  const subtotal = options.runners.reduce((s, r) => s + r.price, 0);
  const fees = options.runners.reduce((s, r) => s + r.fee, 0);
  const donation = options.donation ?? 0;
  const total = subtotal + fees + donation;
  const code = randomString(8, '23456789ABCDEFGHJKLMNPQRSTUVWXYZ');
  const status = options.status ?? 'paid';
  await m.db.insert(orders).values({
    id,
    organizationId: m.organizationId,
    eventId: m.eventId,
    orderCode: code,
    status,
    currency: 'UGX',
    subtotal,
    donationTotal: donation,
    lacesFee: fees,
    total,
    paymentMethod: options.method,
    buyerName: 'Amina Nakato',
    buyerEmail: 'amina@example.org',
    buyerPhone: '256772123456',
    paidAfterExpiry: options.paidAfterExpiry ?? false,
    paidAt: status === 'paid' ? options.at : null,
    createdAt: options.at,
    updatedAt: options.at,
  });
  const registrationIds = options.runners.map(() => newId('reg'));
  await m.db.insert(registrations).values(
    options.runners.map((r, position) => ({
      id: registrationIds[position]!,
      orderId: id,
      organizationId: m.organizationId,
      ticketTypeId: r.ticketTypeId,
      position,
      ticketLabel: 'Ticket',
      distanceKm: 10,
      priceMinor: r.price,
      feeMinor: r.fee,
      participantName: `Runner ${position + 1}`,
      status: status === 'paid' ? 'confirmed' : 'cancelled',
      createdAt: options.at,
    })),
  );
  const [attempt] = await m.db
    .insert(paymentAttempts)
    .values({
      id: newId('pay'),
      reference: randomUUID(),
      orderId: id,
      organizationId: m.organizationId,
      method: options.method,
      msisdn: options.msisdn ?? '256772123456',
      amount: total,
      currency: 'UGX',
      status: 'successful',
      providerTransactionId: options.providerId,
      promptExpiresAt: options.at,
      createdAt: options.at,
      finalizedAt: options.at,
    })
    .returning();
  return { id, code, attempt: attempt!, registrationIds, total };
}

/** A succeeded refund of the order: `runners` cancelled and tied to it, the order's refunded total raised. */
export async function refunded(
  m: Money,
  order: Awaited<ReturnType<typeof paidOrder>>,
  options: { amount: number; fee: number; runners: string[]; at: Date; providerId: string; whole?: boolean },
) {
  const id = newId('rfd');
  await m.db.insert(refunds).values({
    id,
    organizationId: m.organizationId,
    orderId: order.id,
    attemptId: order.attempt.id,
    kind: 'order',
    reference: randomUUID(),
    amount: options.amount,
    feeAmount: options.fee,
    currency: 'UGX',
    method: order.attempt.method,
    status: 'succeeded',
    providerReference: options.providerId,
    requestedByLabel: 'operator',
    createdAt: options.at,
    finalizedAt: options.at,
  });
  if (options.runners.length > 0) {
    await m.db
      .update(registrations)
      .set({ status: 'cancelled', refundId: id })
      .where(inArray(registrations.id, options.runners));
  }
  const [row] = await m.db.select().from(orders).where(eq(orders.id, order.id));
  await m.db
    .update(orders)
    .set({
      refundedTotal: row!.refundedTotal + options.amount,
      ...(options.whole && { status: 'refunded' }),
    })
    .where(eq(orders.id, order.id));
}

/** The event "Gulu Peace Run" (handle gulu-peace-run) of the partner's organization, with its money. */
export async function seedMoneyEvent(h: Harness, partner: TestPartner): Promise<string> {
  const event = await makeEvent(h, partner, {
    name: 'Gulu Peace Run',
    handle: 'gulu-peace-run',
    ticket_types: [
      { name: '10 km', price_minor: 50000, capacity: 100 },
      { name: '5 km', price_minor: 20000, capacity: 100 },
    ],
  });
  const m: Money = {
    db: h.service.ctx.database.db,
    organizationId: partner.organizationId,
    eventId: event.id,
  };
  const [ten, five] = (await ticketTypesOf(m.db, [event.id])).sort((a, b) => a.position - b.position);
  const tenK = { ticketTypeId: ten!.id, price: 50000, fee: 1750 };
  const fiveK = { ticketTypeId: five!.id, price: 20000, fee: 700 };
  const t0 = h.clock.now().getTime() - 3 * 24 * 3600_000;
  const at = (minutes: number) => new Date(t0 + minutes * 60_000);
  const mtnOrder = await paidOrder(m, {
    method: 'momo',
    runners: [tenK, fiveK],
    donation: 5000,
    providerId: 'MTN-TX-1',
    at: at(0),
  });
  const airtelOrder = await paidOrder(m, {
    method: 'airtel',
    runners: [tenK],
    providerId: 'AIR-TX-2',
    at: at(10),
  });
  // a payment that came after its hold ended: on the statement, never a sale
  await paidOrder(m, {
    method: 'momo',
    runners: [tenK],
    status: 'expired',
    paidAfterExpiry: true,
    providerId: 'MTN-TX-LATE',
    at: at(20),
  });
  await refunded(m, airtelOrder, {
    amount: 51750,
    fee: 1750,
    runners: airtelOrder.registrationIds,
    at: at(30),
    providerId: 'AIR-RF-1',
    whole: true,
  });
  // the 5 km runner of the MTN order, price and fee, then an amount of goodwill
  await refunded(m, mtnOrder, {
    amount: 20700,
    fee: 700,
    runners: [mtnOrder.registrationIds[1]!],
    at: at(40),
    providerId: 'MTN-RF-1',
  });
  await refunded(m, mtnOrder, { amount: 3000, fee: 0, runners: [], at: at(50), providerId: 'MTN-RF-2' });
  return event.id;
}
