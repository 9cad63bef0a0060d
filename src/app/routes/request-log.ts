// GET /developers/requests: the organization's last API requests, of all its clients or of one
// (?client=). A client of another organization, or none, is the same 404 page as elsewhere.
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { listApiClients, listRequestLog } from '../../auth/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderRequestLog } from '../views/request-log-page.ts';
import { queryOf } from '../app-input.ts';

// A repeated `client` is kept (it names no client, so the log shows none), as the page always did.
const RequestLogQuery = Type.Object({
  client: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
});

export function showRequestLog(ctx: AppContext): Handler {
  return async (request, reply) => {
    const { organizationId } = memberOf(request);
    const asked = queryOf(request, RequestLogQuery).client;
    // "All clients" sends an empty value; a repeated one names no client.
    const clientId = asked === undefined || asked === '' ? undefined : String(asked).slice(0, 100);
    // All three at once: the log is read within the organization, so a refused filter leaks nothing.
    const [viewer, clients, rows] = await Promise.all([
      viewerOf(ctx, request),
      listApiClients(ctx.database.db, organizationId),
      listRequestLog(ctx.database.db, organizationId, { clientId }),
    ]);
    if (clientId !== undefined && !clients.some((c) => c.id === clientId)) {
      throw new PageError('not_found', 'client');
    }
    return sendPage(reply, 200, renderRequestLog({ viewer, clients, clientId, rows }));
  };
}
