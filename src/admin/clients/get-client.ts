// GET /clients/:client_id: one API client.
import { ClientOut, toClientOut } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import { Envelope, envelope, type Host } from '../../platform/index.ts';
import { ClientIdParams, errorResponses } from '../admin-schemas.ts';
import { clientOr404 } from './client-admin-checks.ts';

export function getClientRoute(admin: Host, ctx: AppContext): void {
  admin.get(
    '/clients/:client_id',
    {
      schema: {
        params: ClientIdParams,
        response: { 200: Envelope(ClientOut, 'Client retrieved'), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const client = await clientOr404(ctx, request.params.client_id);
      return envelope(200, 'Client retrieved', toClientOut(client));
    },
  );
}
