// The server's part of the check-in search: what the device cannot answer alone, a buyer's phone
// (never on the device) and an order code, through the order search and its indexes. Names, bibs
// and ticket codes are searched on the device, offline too.
import { confirmedRegistrations, searchOrders } from '../orders/index.ts';
import type { Executor } from '../platform/index.ts';
import type { RaceEvent } from '../startlists/index.ts';

/** Orders looked at per search: the page shows a handful of runners, not a list. */
const ORDERS_PER_SEARCH = 10;

/** The registration ids of the event's paid orders that match `q` (at least 3 characters). */
export async function searchRoster(db: Executor, race: RaceEvent, q: string): Promise<string[]> {
  const text = q.trim();
  if (text.length < 3) return [];
  const { event } = race;
  const orders = await searchOrders(
    db,
    event.organizationId,
    { eventId: event.id, status: 'paid', q: text },
    { limit: ORDERS_PER_SEARCH },
  );
  const ids: string[] = [];
  for (const order of orders) {
    for (const r of await confirmedRegistrations(db, { orderId: order.id })) ids.push(r.registrationId);
  }
  return ids;
}
