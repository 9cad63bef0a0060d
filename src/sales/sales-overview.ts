// Sales at a glance, the organizer app's home page: for one event, paid tickets per day per
// ticket type (days in the event's time zone), capacity per ticket type, money per payment method
// and per channel or partner; for the whole organization, the payments needing attention. Every
// figure is an SQL aggregate of the owning module (orders, events, payments, auth); this module
// only puts them together.
import {
  listFailedRefunds,
  listPaymentsNeedingRefund,
  listStalledPayments,
  PAYMENT_METHOD_CATALOGUE,
} from '../payments/index.ts';
import { findOrders, paidTicketsPerDay, paidTotals } from '../orders/index.ts';
import { listApiClients } from '../auth/index.ts';
import { listEventsOfOrganization, ticketTypesOf, type EventRow } from '../events/index.ts';
import type { Executor } from '../platform/index.ts';

/** Longest list of each kind of payment needing attention on the page; the rest is counted as more. */
const ATTENTION_LIMIT = 20;

interface TicketTypeSales {
  id: string;
  name: string;
  capacity: number;
  sold: number;
  held: number;
  left: number;
}

export interface MoneyLine {
  /** what the line is, as the organizer reads it */
  label: string;
  orders: number;
  totalMinor: number;
  feesMinor: number;
}

type AttentionReason = 'paid_after_expiry' | 'duplicate_payment' | 'pending_too_long' | 'refund_failed';

export interface AttentionItem {
  reason: AttentionReason;
  orderId: string;
  orderCode: string;
  eventName: string;
  method: string;
  amountMinor: number;
  currency: string;
  /** when the payment succeeded, or for a stuck one when its prompt window ended */
  at: Date;
}

export interface SalesOverview {
  /** the organization's events, soonest first, for the event filter */
  events: Pick<EventRow, 'id' | 'name' | 'startsAt' | 'timezone'>[];
  /** the event shown; null when the organization has none */
  event: Pick<EventRow, 'id' | 'name' | 'startsAt' | 'timezone' | 'currency'> | null;
  ticketTypes: TicketTypeSales[];
  /** days (YYYY-MM-DD, event time zone) with paid tickets, each with a count per ticket type id */
  daily: { day: string; tickets: Record<string, number> }[];
  byMethod: MoneyLine[];
  byChannel: MoneyLine[];
  attention: { items: AttentionItem[]; more: boolean };
}

const METHOD_LABELS: Record<string, string> = {
  ...Object.fromEntries(PAYMENT_METHOD_CATALOGUE.map((m) => [m.key, m.provider])),
  free: 'Free',
};
const CHANNEL_LABELS: Record<string, string> = { partner_api: 'Partner API' };

/**
 * The event shown by default: the next one that has not ended (what an organizer is selling now),
 * else the one that ended last.
 */
export function defaultEvent<T extends Pick<EventRow, 'endsAt' | 'status'>>(
  events: readonly T[],
  now: Date,
): T | null {
  const live = events.filter((e) => e.status !== 'cancelled');
  const pool = live.length > 0 ? live : events;
  return pool.find((e) => e.endsAt >= now) ?? pool.at(-1) ?? null;
}

/**
 * The overview for the organization, of `eventId` or the default event. 'not_found' when
 * `eventId` is not one of the organization's events (another organization's included).
 */
export async function loadSalesOverview(
  db: Executor,
  options: { organizationId: string; eventId?: string; now: Date },
): Promise<SalesOverview | 'not_found'> {
  const { organizationId, now } = options;
  const events = await listEventsOfOrganization(db, organizationId);
  const event =
    options.eventId === undefined
      ? defaultEvent(events, now)
      : (events.find((e) => e.id === options.eventId) ?? 'not_found');
  if (event === 'not_found') return event;
  const ticketTypes = event ? await ticketTypesOf(db, [event.id]) : [];
  const [daily, totals, clients, attention] = await Promise.all([
    event
      ? paidTicketsPerDay(db, {
          organizationId,
          eventId: event.id,
          ticketTypeIds: ticketTypes.map((tt) => tt.id),
          timeZone: event.timezone,
        })
      : [],
    event ? paidTotals(db, { organizationId, eventId: event.id }) : [],
    listApiClients(db, organizationId),
    loadAttention(db, organizationId, now, new Map(events.map((e) => [e.id, e.name]))),
  ]);
  const clientNames = new Map(clients.map((c) => [c.id, c.name]));
  const days = new Map<string, Record<string, number>>();
  for (const row of daily) {
    const tickets = days.get(row.day) ?? {};
    tickets[row.ticketTypeId] = row.tickets;
    days.set(row.day, tickets);
  }
  return {
    events: events.map(({ id, name, startsAt, timezone }) => ({ id, name, startsAt, timezone })),
    event: event
      ? {
          id: event.id,
          name: event.name,
          startsAt: event.startsAt,
          timezone: event.timezone,
          currency: event.currency,
        }
      : null,
    ticketTypes: ticketTypes
      .sort((a, b) => a.position - b.position || a.id.localeCompare(b.id))
      .map((tt) => ({
        id: tt.id,
        name: tt.name,
        capacity: tt.capacity,
        sold: tt.paidCount,
        held: tt.heldCount,
        left: Math.max(0, tt.capacity - tt.paidCount - tt.heldCount),
      })),
    daily: [...days].map(([day, tickets]) => ({ day, tickets })),
    byMethod: sumLines(totals, (t) => METHOD_LABELS[t.paymentMethod ?? 'free'] ?? t.paymentMethod ?? 'Free'),
    byChannel: sumLines(totals, (t) => {
      const channel = CHANNEL_LABELS[t.channel] ?? t.channel;
      if (t.apiClientId === null) return channel;
      return `${channel}: ${clientNames.get(t.apiClientId) ?? t.apiClientId}`;
    }),
    attention,
  };
}

/** The totals summed per label, largest amount first. */
function sumLines<T extends { orders: number; totalMinor: number; feesMinor: number }>(
  rows: readonly T[],
  labelOf: (row: T) => string,
): MoneyLine[] {
  const lines = new Map<string, MoneyLine>();
  for (const row of rows) {
    const label = labelOf(row);
    const line = lines.get(label) ?? { label, orders: 0, totalMinor: 0, feesMinor: 0 };
    line.orders += row.orders;
    line.totalMinor += row.totalMinor;
    line.feesMinor += row.feesMinor;
    lines.set(label, line);
  }
  return [...lines.values()].sort((a, b) => b.totalMinor - a.totalMinor || a.label.localeCompare(b.label));
}

async function loadAttention(
  db: Executor,
  organizationId: string,
  now: Date,
  eventNames: Map<string, string>,
): Promise<SalesOverview['attention']> {
  const [refunds, stalled, failed] = await Promise.all([
    listPaymentsNeedingRefund(db, organizationId, ATTENTION_LIMIT),
    listStalledPayments(db, { organizationId, now, limit: ATTENTION_LIMIT }),
    listFailedRefunds(db, organizationId, ATTENTION_LIMIT + 1),
  ]);
  const failedOrders = new Map(
    (await findOrders(db, organizationId, [...new Set(failed.map((r) => r.orderId))])).map((o) => [o.id, o]),
  );
  const items: AttentionItem[] = [
    ...refunds.payments.map(({ reason, attempt, order }) => ({
      reason,
      orderId: order.id,
      orderCode: order.orderCode,
      eventName: eventNames.get(order.eventId) ?? '',
      method: METHOD_LABELS[attempt.method] ?? attempt.method,
      amountMinor: attempt.amount,
      currency: attempt.currency,
      at: attempt.finalizedAt ?? attempt.createdAt,
    })),
    ...stalled.payments.map(({ attempt, order }) => ({
      reason: 'pending_too_long' as const,
      orderId: order.id,
      orderCode: order.orderCode,
      eventName: eventNames.get(order.eventId) ?? '',
      method: METHOD_LABELS[attempt.method] ?? attempt.method,
      amountMinor: attempt.amount,
      currency: attempt.currency,
      at: attempt.promptExpiresAt,
    })),
    ...failed.slice(0, ATTENTION_LIMIT).flatMap((refund) => {
      const order = failedOrders.get(refund.orderId);
      if (!order) return [];
      return [
        {
          reason: 'refund_failed' as const,
          orderId: order.id,
          orderCode: order.orderCode,
          eventName: eventNames.get(order.eventId) ?? '',
          method: METHOD_LABELS[refund.method] ?? refund.method,
          amountMinor: refund.amount,
          currency: refund.currency,
          at: refund.finalizedAt ?? refund.createdAt,
        },
      ];
    }),
  ];
  return { items, more: refunds.hasMore || stalled.hasMore || failed.length > ATTENTION_LIMIT };
}
