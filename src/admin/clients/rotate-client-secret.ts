// POST /clients/:client_id/rotate-secret: a new secret, shown once; a revoked client has none.
import { rotateClientSecret } from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import { Envelope, envelope, type Host } from '../../platform/index.ts';
import { operatorOf } from '../admin-audit.ts';
import { ClientIdParams, errorResponses, NoBody } from '../admin-schemas.ts';
import { clientIdOf, clientRefusal } from './client-admin-checks.ts';
import { SecretOut } from './client-admin.schema.ts';

export function rotateClientSecretRoute(admin: Host, ctx: AppContext): void {
  admin.post(
    '/clients/:client_id/rotate-secret',
    {
      schema: {
        params: ClientIdParams,
        body: NoBody,
        response: {
          200: Envelope(SecretOut, 'Client secret rotated'),
          ...errorResponses(400, 401, 404, 409),
        },
      },
    },
    async (request) => {
      const outcome = await rotateClientSecret(ctx, {
        actor: operatorOf(request),
        clientId: clientIdOf(request.params.client_id),
      });
      if (!('done' in outcome)) throw clientRefusal(outcome);
      const rotated = outcome.done;
      return envelope(200, 'Client secret rotated', {
        client_id: rotated.client.id,
        client_secret: rotated.clientSecret,
      });
    },
  );
}
