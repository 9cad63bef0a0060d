// Admin routes for organizations: create, list, read, update (name, payments, support email, fees).
import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { notFound } from '../platform/errors.ts';
import { envelope, send, type Host } from '../platform/http.ts';
import { Envelope, Timestamp } from '../platform/schemas.ts';
import {
  createOrganization,
  DEFAULT_FEES,
  findOrganization,
  listOrganizations,
  toOrganizationOut,
  updateOrganization,
} from '../organizations/organizations.ts';
import type { FeeSchedule, MethodFee } from '../organizations/organizations.schema.ts';
import { MAX_FIXED_FEE_MINOR } from '../events/fees.ts';
import { assertId, EmailOrEmpty, IdParams, Name, errorResponses } from './admin-schemas.ts';

const MethodFeeIn = Type.Object(
  {
    percent_bp: Type.Integer({ minimum: 0, maximum: 10000, description: 'basis points: 350 = 3.5%' }),
    fixed_minor: Type.Integer({ minimum: 0, maximum: MAX_FIXED_FEE_MINOR }),
  },
  { additionalProperties: false },
);

const FeesIn = Type.Object(
  { momo: Type.Optional(MethodFeeIn), airtel: Type.Optional(MethodFeeIn) },
  { additionalProperties: false, description: 'A method left out keeps its current (or default) fee' },
);

const OrganizationCreateIn = Type.Object(
  {
    name: Name,
    payments_enabled: Type.Optional(Type.Boolean()),
    support_email: Type.Optional(EmailOrEmpty),
    fees: Type.Optional(FeesIn),
  },
  { additionalProperties: false },
);

const OrganizationPatchIn = Type.Object(
  {
    name: Type.Optional(Name),
    payments_enabled: Type.Optional(Type.Boolean()),
    support_email: Type.Optional(EmailOrEmpty),
    fees: Type.Optional(FeesIn),
  },
  { additionalProperties: false },
);

const MethodFeeOut = Type.Object({ percent_bp: Type.Integer(), fixed_minor: Type.Integer() });

export const OrganizationOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  payments_enabled: Type.Boolean(),
  support_email: Type.String(),
  fees: Type.Object({ momo: MethodFeeOut, airtel: MethodFeeOut }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

function mergeFees(
  current: FeeSchedule,
  patch: { momo?: MethodFee; airtel?: MethodFee } | undefined,
): FeeSchedule | undefined {
  if (!patch) return undefined;
  return { momo: patch.momo ?? current.momo, airtel: patch.airtel ?? current.airtel };
}

export async function registerOrganizationAdminRoutes(admin: Host, ctx: AppContext) {
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
      const row = await createOrganization(db, {
        name: body.name,
        paymentsEnabled: body.payments_enabled ?? false,
        supportEmail: body.support_email ?? '',
        fees: mergeFees(DEFAULT_FEES, body.fees) ?? DEFAULT_FEES,
      });
      return send(reply, 201, 'Organization created', toOrganizationOut(row));
    },
  );

  admin.get(
    '/organizations',
    {
      schema: {
        response: {
          200: Envelope(
            Type.Object({ organizations: Type.Array(OrganizationOut) }),
            'Organizations retrieved',
          ),
          ...errorResponses(401),
        },
      },
    },
    async () => {
      const rows = await listOrganizations(db);
      return envelope(200, 'Organizations retrieved', { organizations: rows.map(toOrganizationOut) });
    },
  );

  admin.get(
    '/organizations/:id',
    {
      schema: {
        params: IdParams,
        response: { 200: Envelope(OrganizationOut, 'Organization retrieved'), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      assertId(request.params.id, 'org', 'organization');
      const row = await findOrganization(db, request.params.id);
      if (!row) throw notFound('organization');
      return envelope(200, 'Organization retrieved', toOrganizationOut(row));
    },
  );

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
      const row = await db.transaction(async (tx) => {
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
