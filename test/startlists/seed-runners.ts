// Paid orders with confirmed registrations written straight into the tables, as a checkout would
// leave them: start list tests need hundreds or thousands of runners, not the payment path.
import { randomBytes } from 'node:crypto';
import type { Executor } from '../../src/platform/db.ts';
import type { EventRow, TicketTypeRow } from '../../src/events/events.ts';
import { newId } from '../../src/platform/ids.ts';
import { orders, registrations } from '../../src/orders/orders.schema.ts';

export interface RunnerInput {
  name: string;
  dateOfBirth?: string | null;
  answers?: Record<string, string>;
  /** the order's status; paid unless said */
  orderStatus?: string;
  /** the registration's status; confirmed unless said */
  status?: string;
  /** who bought it; the runner, buyer@example.org, +256700000000 unless said */
  buyer?: { name: string; email: string; phone: string };
  /** the booking fee on the ticket; none unless said */
  feeMinor?: number;
}

const BATCH = 500;

/** One order per runner, created a millisecond apart in the list's order; returns the registration ids. */
export async function seedRunners(
  db: Executor,
  event: EventRow,
  ticketType: TicketTypeRow,
  runners: RunnerInput[],
  start = new Date('2026-01-01T00:00:00Z'),
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < runners.length; i += BATCH) {
    const slice = runners.slice(i, i + BATCH);
    const orderRows = slice.map((r, j) => {
      const at = new Date(start.getTime() + i + j);
      return {
        id: newId('ord'),
        organizationId: event.organizationId,
        eventId: event.id,
        orderCode: `T${randomBytes(6).toString('hex').toUpperCase()}`,
        status: r.orderStatus ?? 'paid',
        currency: event.currency,
        subtotal: ticketType.priceMinor,
        lacesFee: r.feeMinor ?? 0,
        total: ticketType.priceMinor + (r.feeMinor ?? 0),
        buyerName: r.buyer?.name ?? r.name,
        buyerEmail: r.buyer?.email ?? 'buyer@example.org',
        buyerPhone: r.buyer?.phone ?? '+256700000000',
        paidAt: (r.orderStatus ?? 'paid') === 'paid' ? at : null,
        createdAt: at,
        updatedAt: at,
      };
    });
    await db.insert(orders).values(orderRows);
    const registrationRows = slice.map((r, j) => ({
      id: newId('reg'),
      orderId: orderRows[j]!.id,
      organizationId: event.organizationId,
      ticketTypeId: ticketType.id,
      position: 0,
      ticketLabel: ticketType.name,
      distanceKm: ticketType.distanceKm,
      priceMinor: ticketType.priceMinor,
      feeMinor: r.feeMinor ?? 0,
      participantName: r.name,
      dateOfBirth: r.dateOfBirth ?? null,
      answers: r.answers ?? {},
      status: r.status ?? 'confirmed',
      createdAt: orderRows[j]!.createdAt,
    }));
    await db.insert(registrations).values(registrationRows);
    ids.push(...registrationRows.map((r) => r.id));
  }
  return ids;
}
