// POST /organizations: a new organization, with the default fees for any method left out.
import type { AppContext } from '../../context.ts';
import { checkOrganizationSettings, createOrganization } from '../../organizations/index.ts';
import { Envelope, send, validationError, type Host } from '../../platform/index.ts';
import { errorResponses } from '../admin-schemas.ts';
import {
  mergeFees,
  OrganizationCreateIn,
  OrganizationOut,
  resolvedFees,
  toOrganizationOut,
} from './organization-admin.schema.ts';

export function createOrganizationRoute(admin: Host, ctx: AppContext): void {
  const db = ctx.database.db;
  admin.post(
    '/organizations',
    {
      schema: {
        body: OrganizationCreateIn,
        response: { 201: Envelope(OrganizationOut, 'Organization created'), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const errors = checkOrganizationSettings(body);
      if (errors.length > 0) throw validationError(errors);
      const row = await createOrganization(db, {
        name: body.name,
        paymentsEnabled: body.payments_enabled ?? false,
        supportEmail: body.support_email ?? '',
        fees: mergeFees(resolvedFees({}), body.fees) ?? resolvedFees({}),
        timezone: body.timezone,
        currency: body.currency,
      });
      return send(reply, 201, 'Organization created', toOrganizationOut(row));
    },
  );
}
