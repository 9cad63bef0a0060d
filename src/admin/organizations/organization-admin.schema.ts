// The admin organization routes' wire types, and how a fees patch merges into the stored schedule.
// Fees are keyed by the payment methods of the registry (payments/methods/catalogue.ts).
import { Type, type Static, type TSchema } from 'typebox';
import { MAX_FIXED_FEE_MINOR } from '../../events/index.ts';
import type { FeeSchedule, MethodFee, OrganizationRow } from '../../organizations/index.ts';
import { PAYMENT_METHOD_CATALOGUE } from '../../payments/index.ts';
import { Timestamp } from '../../platform/index.ts';
import { EmailOrEmpty, Name } from '../admin-schemas.ts';

/** One property per method of the registry, in its order. */
function byMethod<T extends TSchema>(schema: T): Record<string, T> {
  return Object.fromEntries(PAYMENT_METHOD_CATALOGUE.map((m) => [m.key, schema]));
}

const MethodFeeIn = Type.Object(
  {
    percent_bp: Type.Integer({ minimum: 0, maximum: 10000, description: 'basis points: 350 = 3.5%' }),
    fixed_minor: Type.Integer({ minimum: 0, maximum: MAX_FIXED_FEE_MINOR }),
  },
  { additionalProperties: false },
);

const FeesIn = Type.Object(byMethod(Type.Optional(MethodFeeIn)), {
  additionalProperties: false,
  description: 'A method left out keeps its current (or default) fee',
});

const OptedInMethods = Type.Array(Type.String({ minLength: 1, maxLength: 32 }), {
  maxItems: 16,
  description:
    "The payment methods that need turning on which the organization offers: 'card' (Visa or Mastercard, paid on Flutterwave's page) when the service takes cards. Each once; [] turns them all off. Events in a currency a method takes then offer it and price it on each ticket type.",
  examples: [['card']],
});

const TimeZone = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    "An IANA time zone: the organizer app's times, and a new event's zone. Default Africa/Kampala.",
});
const Currency = Type.String({
  pattern: '^[A-Z]{3}$',
  description: "ISO 4217: a new event's currency unless it names another. Default UGX.",
});

export const OrganizationCreateIn = Type.Object(
  {
    name: Name,
    payments_enabled: Type.Optional(Type.Boolean()),
    support_email: Type.Optional(EmailOrEmpty),
    fees: Type.Optional(FeesIn),
    timezone: Type.Optional(TimeZone),
    currency: Type.Optional(Currency),
  },
  { additionalProperties: false },
);

export const OrganizationPatchIn = Type.Object(
  {
    name: Type.Optional(Name),
    payments_enabled: Type.Optional(Type.Boolean()),
    support_email: Type.Optional(EmailOrEmpty),
    fees: Type.Optional(FeesIn),
    timezone: Type.Optional(TimeZone),
    currency: Type.Optional(Currency),
    opted_in_methods: Type.Optional(OptedInMethods),
  },
  { additionalProperties: false },
);

type FeesPatch = Partial<Record<string, MethodFee>>;

export function mergeFees(current: FeeSchedule, patch: FeesPatch | undefined): FeeSchedule | undefined {
  if (!patch) return undefined;
  return { ...current, ...Object.fromEntries(Object.entries(patch).filter(([, fee]) => fee !== undefined)) };
}

/** Every method's fee: the schedule's, else the method's default (what a new organization stores). */
export function resolvedFees(fees: FeeSchedule): Record<string, MethodFee> {
  return Object.fromEntries(
    PAYMENT_METHOD_CATALOGUE.map((m) => [
      m.key,
      (Object.hasOwn(fees, m.key) ? fees[m.key] : undefined) ?? m.defaultFee,
    ]),
  );
}

const MethodFeeOut = Type.Object({ percent_bp: Type.Integer(), fixed_minor: Type.Integer() });

export const OrganizationOut = Type.Object({
  id: Type.String(),
  name: Type.String(),
  payments_enabled: Type.Boolean(),
  support_email: Type.String(),
  timezone: Type.String(),
  currency: Type.String(),
  fees: Type.Object(byMethod(MethodFeeOut)),
  opted_in_methods: Type.Array(Type.String(), {
    description: "The payment methods that need turning on which the organization offers, such as 'card'",
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type OrganizationOut = Static<typeof OrganizationOut>;

export function toOrganizationOut(row: OrganizationRow): OrganizationOut {
  return {
    id: row.id,
    name: row.name,
    payments_enabled: row.paymentsEnabled,
    support_email: row.supportEmail,
    timezone: row.timezone,
    currency: row.currency,
    fees: resolvedFees(row.fees),
    opted_in_methods: [...row.optedInMethods],
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
