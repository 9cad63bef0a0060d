// The admin organization routes' wire types, and how a fees patch merges into the stored schedule.
import { Type, type Static } from 'typebox';
import { MAX_FIXED_FEE_MINOR } from '../../events/fees.ts';
import type { FeeSchedule } from '../../organizations/organizations.ts';
import { EmailOrEmpty, Name } from '../admin-schemas.ts';

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

export const OrganizationCreateIn = Type.Object(
  {
    name: Name,
    payments_enabled: Type.Optional(Type.Boolean()),
    support_email: Type.Optional(EmailOrEmpty),
    fees: Type.Optional(FeesIn),
  },
  { additionalProperties: false },
);

export const OrganizationPatchIn = Type.Object(
  {
    name: Type.Optional(Name),
    payments_enabled: Type.Optional(Type.Boolean()),
    support_email: Type.Optional(EmailOrEmpty),
    fees: Type.Optional(FeesIn),
  },
  { additionalProperties: false },
);

export function mergeFees(
  current: FeeSchedule,
  patch: Static<typeof FeesIn> | undefined,
): FeeSchedule | undefined {
  if (!patch) return undefined;
  return { momo: patch.momo ?? current.momo, airtel: patch.airtel ?? current.airtel };
}
