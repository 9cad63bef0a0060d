// POST /clients/:client_id/regenerate-publishable-key: a new publishable key; the old one stops working.
import { regeneratePublishableKey } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import { Envelope, envelope, type Host } from '../../platform/index.ts';
import { operatorOf } from '../admin-audit.ts';
import { ClientIdParams, errorResponses, NoBody } from '../admin-schemas.ts';
import { clientIdOf, clientRefusal } from './client-admin-checks.ts';
import { PublishableKeyOut } from './client-admin.schema.ts';

export function regeneratePublishableKeyRoute(admin: Host, ctx: AppContext): void {
  admin.post(
    '/clients/:client_id/regenerate-publishable-key',
    {
      schema: {
        params: ClientIdParams,
        body: NoBody,
        response: {
          200: Envelope(PublishableKeyOut, 'Publishable key regenerated'),
          ...errorResponses(400, 401, 404, 409),
        },
      },
    },
    async (request) => {
      const outcome = await regeneratePublishableKey(ctx, {
        actor: operatorOf(request),
        clientId: clientIdOf(request.params.client_id),
      });
      if (!('done' in outcome)) throw clientRefusal(outcome);
      const row = outcome.done;
      return envelope(200, 'Publishable key regenerated', {
        client_id: row.id,
        publishable_key: row.publishableKey,
      });
    },
  );
}
