// GET /orders.csv: the orders the same filters show, every one of them, streamed a batch at a time
// (memory stays flat however many there are). Unreadable filters are the orders page with errors.
// Plain headers, totals in major units, times on the event's clock (the header names the zone, or
// says each event's own when the events differ), phone numbers kept as text; the buyer's email
// and phone only for roles that see them. Each download is audited.
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { listApiClients } from '../../auth/index.ts';
import { listEventsOfOrganization, type EventRow } from '../../events/index.ts';
import { orderBatches, type OrderListRow, type OrderSearch } from '../../orders/index.ts';
import { csvLines, csvText, formatMajor, type CsvValue, type Executor } from '../../platform/index.ts';
import { METHOD_NAMES, nationalPhone } from '../../site/index.ts';
import { memberOf } from '../app-access.ts';
import { audited, localStamp, showsContacts, type ExportRecord } from '../exports.ts';
import { OrderFilterQuery, readOrderFilters } from '../order-filters.ts';
import type { Handler } from '../replies.ts';
import { CHANNEL_LABELS } from '../views/order-pages.ts';
import { showOrders } from './orders-list.ts';
import { queryOf } from '../app-input.ts';

interface Names {
  events: Map<string, EventRow>;
  clients: Map<string, string>;
}

interface Column {
  header: string;
  value: (o: OrderListRow) => CsvValue;
}

/**
 * The columns. `zone`: the one time zone of every event the file can hold, or null when they
 * differ, and each time is then on its own event's clock with the zone in a column of its own.
 */
function orderColumns(names: Names, zone: string | null, contacts: boolean): Column[] {
  const zoneOf = (o: OrderListRow) => names.events.get(o.eventId)?.timezone ?? 'UTC';
  const columns: Column[] = [
    { header: 'Order', value: (o) => o.orderCode },
    {
      header: zone ? `Created (${zone})` : "Created (each event's local time)",
      value: (o) => localStamp(o.createdAt, zoneOf(o)),
    },
    ...(zone ? [] : [{ header: 'Time zone', value: zoneOf }]),
    { header: 'Event', value: (o) => names.events.get(o.eventId)?.name ?? o.eventId },
    { header: 'Status', value: (o) => o.status },
    { header: 'Total', value: (o) => formatMajor(o.total, o.currency) },
    { header: 'Currency', value: (o) => o.currency },
    {
      header: 'Payment method',
      value: (o) => (o.paymentMethod ? (METHOD_NAMES[o.paymentMethod] ?? o.paymentMethod) : ''),
    },
    { header: 'Buyer name', value: (o) => o.buyerName },
  ];
  if (contacts) {
    columns.push(
      { header: 'Buyer email', value: (o) => o.buyerEmail },
      { header: 'Buyer phone', value: (o) => csvText(nationalPhone(o.buyerPhone)) },
    );
  }
  columns.push(
    { header: 'Tickets', value: (o) => o.tickets },
    { header: 'Channel', value: (o) => CHANNEL_LABELS[o.channel] },
    {
      header: 'Partner',
      value: (o) => (o.apiClientId ? (names.clients.get(o.apiClientId) ?? o.apiClientId) : ''),
    },
  );
  return columns;
}

async function* orderRows(db: Executor, organizationId: string, search: OrderSearch) {
  for await (const batch of orderBatches(db, organizationId, search)) yield* batch;
}

function recordOf(
  request: FastifyRequest,
  search: OrderSearch,
  file: string,
  contacts: boolean,
): ExportRecord {
  const organizationId = memberOf(request).organizationId;
  return {
    action: 'orders.exported',
    target: search.eventId
      ? { type: 'event', id: search.eventId }
      : { type: 'organization', id: organizationId },
    file,
    contacts,
  };
}

export function exportOrders(ctx: AppContext): Handler {
  return async (request, reply) => {
    const { organizationId } = memberOf(request);
    const db = ctx.database.db;
    const filters = readOrderFilters(queryOf(request, OrderFilterQuery), memberOf(request).timeZone);
    if (Object.keys(filters.errors).length > 0) return showOrders(ctx)(request, reply);
    const [events, clients] = await Promise.all([
      listEventsOfOrganization(db, organizationId),
      listApiClients(db, organizationId),
    ]);
    const names: Names = {
      events: new Map(events.map((e) => [e.id, e])),
      clients: new Map(clients.map((c) => [c.id, c.name])),
    };
    const { search } = filters;
    const shown = search.eventId ? events.filter((e) => e.id === search.eventId) : events;
    const zones = new Set(shown.map((e) => e.timezone));
    const zone = zones.size === 1 ? [...zones][0]! : null;
    const contacts = showsContacts(request);
    const columns = orderColumns(names, zone, contacts);
    const file = `orders-${ctx.clock.now().toISOString().slice(0, 10)}.csv`;
    const rows = audited(
      ctx,
      request,
      recordOf(request, search, file, contacts),
      orderRows(db, organizationId, search),
    );
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${file}"`)
      .header('Cache-Control', 'no-store')
      .send(
        Readable.from(
          csvLines(
            columns.map((c) => c.header),
            rows,
            (row) => columns.map((c) => c.value(row)),
          ),
        ),
      );
  };
}
