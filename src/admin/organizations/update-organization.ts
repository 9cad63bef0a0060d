// PATCH /organizations/:id: name, payments, support email, time zone, currency and fees; a fee
// method left out keeps its current fee. The organizations module's action writes and audits it.
import type { AppContext } from '../../context.ts';
import { findOrganization, updateOrganizationSettings } from '../../organizations/index.ts';
import { Envelope, envelope, notFound, refusalError, type Host } from '../../platform/index.ts';
import { operatorOf } from '../admin-audit.ts';
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
      const current = await findOrganization(ctx.database.db, request.params.id);
      if (!current) throw notFound('organization');
      const { fees, ...rest } = request.body;
      const outcome = await updateOrganizationSettings(ctx, {
        actor: operatorOf(request),
        id: current.id,
        patch: { ...rest, ...(fees !== undefined && { fees: mergeFees(current.fees, fees) }) },
      });
      if (!('done' in outcome)) throw refusalError(outcome, 'organization');
      return envelope(200, 'Organization updated', toOrganizationOut(outcome.done));
    },
  );
}
