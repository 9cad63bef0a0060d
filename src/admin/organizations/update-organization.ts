// PATCH /organizations/:id: name, payments, support email and fees; a fee method left out keeps its
// current fee.
import type { AppContext } from '../../context.ts';
import { findOrganization, updateOrganization } from '../../organizations/index.ts';
import { Envelope, envelope, notFound, type Host } from '../../platform/index.ts';
import { assertId, errorResponses, IdParams } from '../admin-schemas.ts';
import {
  mergeFees,
  OrganizationOut,
  OrganizationPatchIn,
  toOrganizationOut,
} from './organization-admin.schema.ts';

export function updateOrganizationRoute(admin: Host, ctx: AppContext): void {
  admin.patch(
    '/organizations/:id',
    {
      schema: {
        params: IdParams,
        body: OrganizationPatchIn,
        response: {
          200: Envelope(OrganizationOut, 'Organization updated'),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      assertId(request.params.id, 'org', 'organization');
      const body = request.body;
      const row = await ctx.database.transaction(async (tx) => {
        const current = await findOrganization(tx, request.params.id);
        if (!current) return undefined;
        return updateOrganization(
          tx,
          current.id,
          {
            name: body.name,
            paymentsEnabled: body.payments_enabled,
            supportEmail: body.support_email,
            fees: mergeFees(current.fees, body.fees),
          },
          ctx.clock.now(),
        );
      });
      if (!row) throw notFound('organization');
      return envelope(200, 'Organization updated', toOrganizationOut(row));
    },
  );
}
