// GET /developers/requests: the organization's last API requests, of all its clients or of one
// (?client=). A client of another organization, or none, is the same 404 page as elsewhere.
import type { AppContext } from '../../context.ts';
import { listApiClients } from '../../auth/clients.ts';
import { listRequestLog } from '../../auth/request-log.ts';
import { memberOf, PageError } from '../app-access.ts';
import { sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderRequestLog } from '../views/request-log-page.ts';

export function showRequestLog(ctx: AppContext): Handler {
  return async (request, reply) => {
    const { organizationId } = memberOf(request);
    const asked = (request.query as Record<string, unknown>).client;
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
