// Orders written straight into the tables with known figures, for the sales overview's tests and
// its local measurement at scale: the buying path has its own tests, and these need exact days,
// methods and states (a payment after expiry, a stuck prompt) that no real buyer can order up.
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { orders, registrations } from '../../src/orders/orders.schema.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import type { Executor } from '../../src/platform/db.ts';
import { newId, randomString } from '../../src/platform/ids.ts';

export interface OrderFixture {
  organizationId: string;
  eventId: string;
  /** one registration per ticket type id listed */
  ticketTypeIds: string[];
  status?: 'paid' | 'pending' | 'expired' | 'refunded';
  paymentMethod?: 'momo' | 'airtel' | null;
  apiClientId?: string | null;
  total?: number;
  fee?: number;
  currency?: string;
  createdAt: Date;
  paidAt?: Date | null;
  paidAfterExpiry?: boolean;
}

/** Writes the order and its registrations; a paid one counts in its ticket types' paid_count. */
export async function insertOrder(db: Executor, o: OrderFixture): Promise<{ id: string; code: string }> {
  const status = o.status ?? 'paid';
  const id = newId('ord');
  const code = randomString(8, '23456789ABCDEFGHJKLMNPQRSTUVWXYZ');
  await db.insert(orders).values({
    id,
    organizationId: o.organizationId,
    eventId: o.eventId,
    apiClientId: o.apiClientId ?? null,
    orderCode: code,
    status,
    currency: o.currency ?? 'UGX',
    subtotal: (o.total ?? 0) - (o.fee ?? 0),
    lacesFee: o.fee ?? 0,
    total: o.total ?? 0,
    paymentMethod: o.paymentMethod === undefined ? 'momo' : o.paymentMethod,
    buyerName: 'Test Buyer',
    buyerEmail: 'buyer@example.org',
    buyerPhone: '256770000001',
    paidAfterExpiry: o.paidAfterExpiry ?? false,
    paidAt: o.paidAt === undefined ? (status === 'paid' ? o.createdAt : null) : o.paidAt,
    holdExpiresAt: status === 'pending' ? new Date(o.createdAt.getTime() + 15 * 60_000) : null,
    createdAt: o.createdAt,
    updatedAt: o.createdAt,
  });
  await db.insert(registrations).values(
    o.ticketTypeIds.map((ticketTypeId, position) => ({
      id: newId('reg'),
      orderId: id,
      organizationId: o.organizationId,
      ticketTypeId,
      position,
      ticketLabel: 'Ticket',
      distanceKm: 5,
      priceMinor: 0,
      feeMinor: 0,
      participantName: 'Runner',
      status: status === 'paid' ? 'confirmed' : status === 'pending' ? 'pending' : 'cancelled',
      createdAt: o.createdAt,
    })),
  );
  if (status === 'paid' || status === 'pending') {
    const column = status === 'paid' ? ticketTypes.paidCount : ticketTypes.heldCount;
    for (const ticketTypeId of o.ticketTypeIds) {
      await db
        .update(ticketTypes)
        .set({ [status === 'paid' ? 'paidCount' : 'heldCount']: sql`${column} + 1` })
        .where(eq(ticketTypes.id, ticketTypeId));
    }
  }
  return { id, code };
}

/** A payment attempt of the order, as the payments module writes one. */
export async function insertAttempt(
  db: Executor,
  a: {
    organizationId: string;
    orderId: string;
    method?: 'momo' | 'airtel';
    status: 'pending' | 'timed_out' | 'successful' | 'failed' | 'closed';
    amount: number;
    createdAt: Date;
    promptExpiresAt?: Date;
    finalizedAt?: Date | null;
  },
): Promise<string> {
  const id = newId('pay');
  await db.insert(paymentAttempts).values({
    id,
    reference: randomUUID(),
    orderId: a.orderId,
    organizationId: a.organizationId,
    method: a.method ?? 'momo',
    msisdn: '256770000001',
    amount: a.amount,
    currency: 'UGX',
    status: a.status,
    promptExpiresAt: a.promptExpiresAt ?? new Date(a.createdAt.getTime() + 5 * 60_000),
    createdAt: a.createdAt,
    finalizedAt: a.finalizedAt ?? (a.status === 'successful' ? a.createdAt : null),
  });
  return id;
}
