// POST /clients/:client_id/rotate-secret: a new secret, shown once; a revoked client has none.
import { rotateClientSecret } from '../../auth/clients.ts';
import type { AppContext } from '../../context.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { ClientIdParams, errorResponses, NoBody } from '../admin-schemas.ts';
import { clientOr404, revokedConflict } from './client-admin-checks.ts';
import { SecretOut } from './client-admin.schema.ts';

export function rotateClientSecretRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
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
      const client = await clientOr404(ctx, request.params.client_id);
      if (client.revokedAt) throw revokedConflict();
      const rotated = await rotateClientSecret(db, client.id, ctx.clock.now());
      if (!rotated) throw revokedConflict(); // revoked in the meantime
      return envelope(200, 'Client secret rotated', {
        client_id: rotated.client.id,
        client_secret: rotated.clientSecret,
      });
    },
  );
}
