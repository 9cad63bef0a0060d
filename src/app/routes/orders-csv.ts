// GET /orders.csv: the orders the same filters show, every one of them, streamed a batch at a time
// (memory stays flat however many there are). Unreadable filters are the orders page with errors.
import { Readable } from 'node:stream';
import type { AppContext } from '../../context.ts';
import { listApiClients } from '../../auth/index.ts';
import { listEventsOfOrganization } from '../../events/index.ts';
import { orderBatches, type OrderSearch } from '../../orders/index.ts';
import { CSV_BOM, csvRow, type Executor } from '../../platform/index.ts';
import { nationalPhone } from '../../site/index.ts';
import { memberOf } from '../app-access.ts';
import { OrderFilterQuery, readOrderFilters } from '../order-filters.ts';
import type { Handler } from '../replies.ts';
import { CHANNEL_LABELS } from '../views/order-pages.ts';
import { showOrders } from './orders-list.ts';
import { queryOf } from '../app-input.ts';

const HEADER = [
  'order_code',
  'created_at',
  'event',
  'status',
  'total_minor',
  'currency',
  'payment_method',
  'buyer_name',
  'buyer_email',
  'buyer_phone',
  'tickets',
  'channel',
  'partner',
];

async function* lines(
  db: Executor,
  organizationId: string,
  search: OrderSearch,
  names: { events: Map<string, string>; clients: Map<string, string> },
): AsyncGenerator<string> {
  yield CSV_BOM + csvRow(HEADER);
  for await (const batch of orderBatches(db, organizationId, search)) {
    yield batch
      .map((o) =>
        csvRow([
          o.orderCode,
          o.createdAt.toISOString(),
          names.events.get(o.eventId) ?? o.eventId,
          o.status,
          o.total,
          o.currency,
          o.paymentMethod,
          o.buyerName,
          o.buyerEmail,
          nationalPhone(o.buyerPhone),
          o.tickets,
          CHANNEL_LABELS[o.channel],
          o.apiClientId ? (names.clients.get(o.apiClientId) ?? o.apiClientId) : '',
        ]),
      )
      .join('');
  }
}

export function exportOrders(ctx: AppContext): Handler {
  return async (request, reply) => {
    const { organizationId } = memberOf(request);
    const db = ctx.database.db;
    const filters = readOrderFilters(queryOf(request, OrderFilterQuery));
    if (Object.keys(filters.errors).length > 0) return showOrders(ctx)(request, reply);
    const [events, clients] = await Promise.all([
      listEventsOfOrganization(db, organizationId),
      listApiClients(db, organizationId),
    ]);
    const names = {
      events: new Map(events.map((e) => [e.id, e.name])),
      clients: new Map(clients.map((c) => [c.id, c.name])),
    };
    const day = new Date().toISOString().slice(0, 10);
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="orders-${day}.csv"`)
      .header('Cache-Control', 'no-store')
      .send(Readable.from(lines(db, organizationId, filters.search, names)));
  };
}
