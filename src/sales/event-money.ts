// What the organizer receives from one event: what buyers paid, the service fees, donations and
// refunds, per network and per ticket type, and the net (docs/decisions/money-page.md). Service
// fees returned by a refund are the service's, so the net loses only the tickets and donations
// given back. Every figure is an aggregate of the owning module (orders, payments); this module
// puts them together, and walks the payments and refunds for the reconciliation file.
import { findEvent, type EventRow } from '../events/index.ts';
import {
  moneyOrderBatches,
  moneyOrderIds,
  takingsByMethod,
  takingsByTicketType,
  type MoneyOrder,
} from '../orders/index.ts';
import {
  movementsOfOrders,
  orderRefundsByMethod,
  PAYMENT_METHOD_CATALOGUE,
  type MoneyMovement,
} from '../payments/index.ts';
import type { Executor } from '../platform/index.ts';

export interface NetworkMoney {
  /** the payment method key; 'free' for orders that cost nothing */
  key: string;
  label: string;
  orders: number;
  paidMinor: number;
  feesMinor: number;
  donationsMinor: number;
  refundedMinor: number;
  /** the part of refundedMinor that was service fees */
  refundedFeesMinor: number;
  /** what the organizer receives: paid less fees, less what refunds took of tickets and donations */
  netMinor: number;
}

export interface TicketTypeMoney {
  id: string;
  name: string;
  tickets: number;
  ticketMinor: number;
  feesMinor: number;
  refundedTickets: number;
  refundedTicketMinor: number;
  netMinor: number;
}

export interface EventMoney {
  event: Pick<EventRow, 'id' | 'name' | 'handle' | 'currency' | 'timezone' | 'startsAt' | 'donationsEnabled'>;
  byNetwork: NetworkMoney[];
  total: Omit<NetworkMoney, 'key' | 'label'>;
  byTicketType: TicketTypeMoney[];
  /** donations kept: given, less those refunds returned */
  donationsNetMinor: number;
  /** ticket money refunded as an amount rather than runner by runner (not tied to a ticket type) */
  otherRefundsMinor: number;
}

const METHOD_LABELS: Record<string, string> = {
  ...Object.fromEntries(PAYMENT_METHOD_CATALOGUE.map((m) => [m.key, m.provider])),
  free: 'Free',
};

export const methodLabel = (key: string) => METHOD_LABELS[key] ?? key;

/** The money of one of the organization's events; null when it is not one of them. */
export async function loadEventMoney(
  db: Executor,
  options: { organizationId: string; eventId: string },
): Promise<EventMoney | null> {
  const found = await findEvent(db, options.eventId);
  if (!found || found.event.organizationId !== options.organizationId) return null;
  const { event, ticketTypes } = found;
  const [takings, refunds, perType] = await Promise.all([
    takingsByMethod(db, options),
    orderRefundsByMethod(db, options.organizationId, moneyOrderIds(options.organizationId, options.eventId)),
    takingsByTicketType(db, options),
  ]);
  const keys = new Set([...takings.map((t) => t.paymentMethod ?? 'free'), ...refunds.map((r) => r.method)]);
  const byNetwork = [...keys].map((key): NetworkMoney => {
    const t = takings.find((row) => (row.paymentMethod ?? 'free') === key);
    const r = refunds.find((row) => row.method === key);
    const line = {
      key,
      label: methodLabel(key),
      orders: t?.orders ?? 0,
      paidMinor: t?.paidMinor ?? 0,
      feesMinor: t?.feesMinor ?? 0,
      donationsMinor: t?.donationsMinor ?? 0,
      refundedMinor: r?.amountMinor ?? 0,
      refundedFeesMinor: r?.feesMinor ?? 0,
    };
    return { ...line, netMinor: netOf(line) };
  });
  byNetwork.sort((a, b) => b.paidMinor - a.paidMinor || a.label.localeCompare(b.label));
  const total = sumOf(byNetwork);
  const sold = new Map(perType.map((row) => [row.ticketTypeId, row]));
  const byTicketType = [...ticketTypes]
    .sort((a, b) => a.position - b.position || a.id.localeCompare(b.id))
    .map((tt): TicketTypeMoney => {
      const row = sold.get(tt.id);
      const ticketMinor = row?.ticketMinor ?? 0;
      const refundedTicketMinor = row?.refundedTicketMinor ?? 0;
      return {
        id: tt.id,
        name: tt.name,
        tickets: row?.tickets ?? 0,
        ticketMinor,
        feesMinor: row?.feesMinor ?? 0,
        refundedTickets: row?.refundedTickets ?? 0,
        refundedTicketMinor,
        netMinor: ticketMinor - refundedTicketMinor,
      };
    });
  const refundedDonations = refunds.reduce((sum, r) => sum + r.donationsMinor, 0);
  const refundedTickets = total.refundedMinor - total.refundedFeesMinor - refundedDonations;
  const refundedByRunner = byTicketType.reduce((sum, t) => sum + t.refundedTicketMinor, 0);
  return {
    event: {
      id: event.id,
      name: event.name,
      handle: event.handle,
      currency: event.currency,
      timezone: event.timezone,
      startsAt: event.startsAt,
      donationsEnabled: event.donationsEnabled,
    },
    byNetwork,
    total,
    byTicketType,
    donationsNetMinor: total.donationsMinor - refundedDonations,
    otherRefundsMinor: Math.max(0, refundedTickets - refundedByRunner),
  };
}

type Sums = Omit<NetworkMoney, 'key' | 'label' | 'netMinor'>;

const netOf = (s: Sums) => s.paidMinor - s.feesMinor - (s.refundedMinor - s.refundedFeesMinor);

function sumOf(lines: NetworkMoney[]): EventMoney['total'] {
  const sums: Sums = {
    orders: 0,
    paidMinor: 0,
    feesMinor: 0,
    donationsMinor: 0,
    refundedMinor: 0,
    refundedFeesMinor: 0,
  };
  for (const line of lines) {
    for (const key of Object.keys(sums) as (keyof Sums)[]) sums[key] += line[key];
  }
  return { ...sums, netMinor: netOf(sums) };
}

export interface ReconciliationRow extends MoneyMovement {
  order: MoneyOrder;
}

/**
 * Every payment and refund of the event's orders (those that took money, and those paid after
 * their hold ended), order by order, a batch of orders at a time.
 */
export async function* reconciliationRows(
  db: Executor,
  options: { organizationId: string; eventId: string },
): AsyncGenerator<ReconciliationRow> {
  for await (const batch of moneyOrderBatches(db, options)) {
    const byId = new Map(batch.map((o) => [o.id, o]));
    const movements = await movementsOfOrders(
      db,
      options.organizationId,
      batch.map((o) => o.id),
    );
    // order by order, as the batch came, each order's movements in time
    const grouped = new Map<string, MoneyMovement[]>();
    for (const m of movements) grouped.set(m.orderId, [...(grouped.get(m.orderId) ?? []), m]);
    for (const order of batch) {
      for (const m of grouped.get(order.id) ?? []) yield { ...m, order: byId.get(order.id)! };
    }
  }
}
