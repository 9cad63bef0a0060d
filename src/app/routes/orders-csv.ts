// GET /orders.csv and /orders.xlsx: the orders the same filters show, every one of them, streamed
// a batch at a time (memory stays flat however many there are). Unreadable filters are the orders
// page with errors. Plain headers, times on the event's clock (the header names the zone, or says
// each event's own when the events differ), phone numbers kept as text; the buyer's email and
// phone only for roles that see them. In the CSV totals are text in major units; in the workbook
// they are numbers and times are dates. Each download is audited.
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { listApiClients } from '../../auth/index.ts';
import { listEventsOfOrganization, type EventRow } from '../../events/index.ts';
import { orderBatches, type OrderListRow, type OrderSearch } from '../../orders/index.ts';
import { getTimezoneOffset } from 'date-fns-tz/getTimezoneOffset';
import {
  csvLines,
  csvText,
  currencyExponent,
  formatMajor,
  xlsxChunks,
  type CsvValue,
  type Executor,
  type XlsxValue,
} from '../../platform/index.ts';
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
  /** the workbook's cell, when it is not the CSV's value as it is */
  xlsx?: (o: OrderListRow) => XlsxValue;
  /** the workbook's column width, in characters */
  width: number;
}

/** The instant as the clocks of `zone` show it, in milliseconds from 1970-01-01T00:00 on them. */
function wallClock(instant: Date, zone: string): number {
  return instant.getTime() + getTimezoneOffset(zone, instant);
}

/**
 * The columns. `zone`: the one time zone of every event the file can hold, or null when they
 * differ, and each time is then on its own event's clock with the zone in a column of its own.
 */
function orderColumns(names: Names, zone: string | null, contacts: boolean): Column[] {
  const zoneOf = (o: OrderListRow) => names.events.get(o.eventId)?.timezone ?? 'UTC';
  const columns: Column[] = [
    { header: 'Order', value: (o) => o.orderCode, width: 11 },
    {
      header: zone ? `Created (${zone})` : "Created (each event's local time)",
      value: (o) => localStamp(o.createdAt, zoneOf(o)),
      xlsx: (o) => ({ kind: 'datetime', wallClockMs: wallClock(o.createdAt, zoneOf(o)) }),
      width: 20,
    },
    ...(zone ? [] : [{ header: 'Time zone', value: zoneOf, width: 18 }]),
    { header: 'Event', value: (o) => names.events.get(o.eventId)?.name ?? o.eventId, width: 28 },
    { header: 'Status', value: (o) => o.status, width: 10 },
    {
      header: 'Total',
      value: (o) => formatMajor(o.total, o.currency),
      xlsx: (o) => {
        const decimals = currencyExponent(o.currency);
        return { kind: 'amount', value: o.total / 10 ** decimals, decimals };
      },
      width: 12,
    },
    { header: 'Currency', value: (o) => o.currency, width: 9 },
    {
      header: 'Payment method',
      value: (o) => (o.paymentMethod ? (METHOD_NAMES[o.paymentMethod] ?? o.paymentMethod) : ''),
      width: 16,
    },
    { header: 'Buyer name', value: (o) => o.buyerName, width: 24 },
  ];
  if (contacts) {
    columns.push(
      { header: 'Buyer email', value: (o) => o.buyerEmail, width: 28 },
      {
        header: 'Buyer phone',
        value: (o) => csvText(nationalPhone(o.buyerPhone)),
        // a text cell marked as text (@): Excel does not offer to "fix" it into a number
        xlsx: (o) => ({ kind: 'text', text: nationalPhone(o.buyerPhone) }),
        width: 14,
      },
    );
  }
  columns.push(
    { header: 'Tickets', value: (o) => o.tickets, width: 8 },
    { header: 'Channel', value: (o) => CHANNEL_LABELS[o.channel], width: 22 },
    {
      header: 'Partner',
      value: (o) => (o.apiClientId ? (names.clients.get(o.apiClientId) ?? o.apiClientId) : ''),
      width: 20,
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

interface OrderExport {
  columns: Column[];
  rows: AsyncIterable<OrderListRow>;
  file: string;
}

/**
 * The export's columns and audited rows for the request's filters, or null when a filter cannot be
 * read (the caller shows the orders page with its errors).
 */
async function prepareExport(
  ctx: AppContext,
  request: FastifyRequest,
  extension: 'csv' | 'xlsx',
): Promise<OrderExport | null> {
  const { organizationId } = memberOf(request);
  const db = ctx.database.db;
  const filters = readOrderFilters(queryOf(request, OrderFilterQuery), memberOf(request).timeZone);
  if (Object.keys(filters.errors).length > 0) return null;
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
  const file = `orders-${ctx.clock.now().toISOString().slice(0, 10)}.${extension}`;
  const rows = audited(
    ctx,
    request,
    recordOf(request, search, file, contacts),
    orderRows(db, organizationId, search),
  );
  return { columns: orderColumns(names, zone, contacts), rows, file };
}

export function exportOrders(ctx: AppContext): Handler {
  return async (request, reply) => {
    const prepared = await prepareExport(ctx, request, 'csv');
    if (!prepared) return showOrders(ctx)(request, reply);
    const { columns, rows, file } = prepared;
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

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export function exportOrdersXlsx(ctx: AppContext): Handler {
  return async (request, reply) => {
    const prepared = await prepareExport(ctx, request, 'xlsx');
    if (!prepared) return showOrders(ctx)(request, reply);
    const { columns, rows, file } = prepared;
    const cells = (row: OrderListRow): XlsxValue[] =>
      columns.map((c) => {
        if (c.xlsx) return c.xlsx(row);
        const value = c.value(row);
        return typeof value === 'object' && value !== null ? { kind: 'text', text: value.text } : value;
      });
    return reply
      .type(XLSX_TYPE)
      .header('Content-Disposition', `attachment; filename="${file}"`)
      .header('Cache-Control', 'no-store')
      .send(
        Readable.from(
          xlsxChunks({
            sheetName: 'Orders',
            columns: columns.map((c) => ({ header: c.header, width: c.width })),
            rows,
            cells,
          }),
          { objectMode: false },
        ),
      );
  };
}
