// POST /clients/:client_id/rotate-secret: a new secret, shown once; a revoked client has none.
import { rotateClientSecret } from '../../auth/clients.ts';
import type { AppContext } from '../../context.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { ClientIdParams, errorResponses, NoBody } from '../admin-schemas.ts';
import { clientOr404, revokedConflict } from './client-admin-checks.ts';
import { SecretOut } from './client-admin.schema.ts';
import { auditedAsOperator, changeOf } from '../admin-audit.ts';

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
      const client = await clientOr404(ctx, request.params.client_id);
      if (client.revokedAt) throw revokedConflict();
      const at = { organizationId: client.organizationId, now: ctx.clock.now() };
      const change = changeOf('client.secret_rotated', { type: 'client', id: client.id });
      const rotated = await auditedAsOperator(ctx, request, at, [change], (tx) =>
        rotateClientSecret(tx, client.id, at.now),
      );
      if (!rotated) throw revokedConflict(); // revoked in the meantime
      return envelope(200, 'Client secret rotated', {
        client_id: rotated.client.id,
        client_secret: rotated.clientSecret,
      });
    },
  );
}
