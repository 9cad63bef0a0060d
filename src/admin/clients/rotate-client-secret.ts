// POST /clients/:client_id/rotate-secret: a new secret, shown once; a revoked client has none.
import { rotateClientSecret } from '../../auth/clients.ts';
import type { AppContext } from '../../context.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { ClientIdParams, errorResponses, NoBody } from '../admin-schemas.ts';
import { clientOr404, revokedConflict } from './client-admin-checks.ts';
import { SecretOut } from './client-admin.schema.ts';
import { auditAsOperator } from '../admin-audit.ts';

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
      const now = ctx.clock.now();
      const rotated = await ctx.database.transaction(async (tx) => {
        const done = await rotateClientSecret(tx, client.id, now);
        const change = {
          action: 'client.secret_rotated',
          targetType: 'client',
          targetId: client.id,
        } as const;
        if (done) await auditAsOperator(tx, request, client.organizationId, [change], now);
        return done;
      });
      if (!rotated) throw revokedConflict(); // revoked in the meantime
      return envelope(200, 'Client secret rotated', {
        client_id: rotated.client.id,
        client_secret: rotated.clientSecret,
      });
    },
  );
}
