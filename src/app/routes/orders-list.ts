// GET /orders: the organization's orders, filtered and searched (order-filters.ts), a page at a
// time newest first. Unreadable filters come back next to their fields with a 400.
import type { AppContext } from '../../context.ts';
import { listApiClients } from '../../auth/index.ts';
import { listEventsOfOrganization } from '../../events/index.ts';
import { searchOrders } from '../../orders/index.ts';
import { memberOf } from '../app-access.ts';
import { OrderFilterQuery, readOrderFilters } from '../order-filters.ts';
import { sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderOrders } from '../views/order-list-page.ts';
import { queryOf } from '../app-input.ts';

export const ORDERS_PER_PAGE = 50;

export function showOrders(ctx: AppContext): Handler {
  return async (request, reply) => {
    const { organizationId } = memberOf(request);
    const db = ctx.database.db;
    const filters = readOrderFilters(queryOf(request, OrderFilterQuery), memberOf(request).timeZone);
    const bad = Object.keys(filters.errors).length > 0;
    const [viewer, events, clients, rows] = await Promise.all([
      viewerOf(ctx, request),
      listEventsOfOrganization(db, organizationId),
      listApiClients(db, organizationId),
      bad
        ? Promise.resolve([])
        : searchOrders(db, organizationId, filters.search, {
            limit: ORDERS_PER_PAGE + 1,
            ...(filters.after && { after: filters.after }),
          }),
    ]);
    const shown = rows.slice(0, ORDERS_PER_PAGE);
    const last = shown.at(-1);
    const next = rows.length > ORDERS_PER_PAGE && last ? `${last.createdAt.getTime()}.${last.id}` : null;
    return sendPage(
      reply,
      bad ? 400 : 200,
      renderOrders({
        viewer,
        values: filters.values,
        errors: filters.errors,
        rows: shown,
        next,
        events: events.map((e) => ({ id: e.id, name: e.name })),
        clients: clients.map((c) => ({ id: c.id, name: c.name })),
      }),
    );
  };
}
