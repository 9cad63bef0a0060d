// Changes an organization's settings (name, support email, time zone, currency, the payment methods
// it turned on; payments and fees from the operator only), audited with the names of the fields that
// changed. The owners' settings page and the admin API call it.
import { recordAudit, type ActingOn } from '../../audit/index.ts';
import type { AppContext, PricedMethod } from '../../context.ts';
import {
  invalid,
  isCurrency,
  isTimeZone,
  notThere,
  type FieldError,
  type Outcome,
} from '../../platform/index.ts';
import { findOrganization, updateOrganization, type OrganizationRow } from '../organizations.ts';
import type { FeeSchedule } from '../organizations.schema.ts';

export interface OrganizationPatch {
  name?: string;
  support_email?: string;
  timezone?: string;
  currency?: string;
  payments_enabled?: boolean;
  fees?: FeeSchedule;
  /** the keys of the methods that need turning on (cards) which the organization offers */
  opted_in_methods?: string[];
}

export interface UpdateOrganizationOptions extends ActingOn {
  id: string;
  patch: OrganizationPatch;
}

const FIELDS: Record<keyof OrganizationPatch, keyof OrganizationRow> = {
  name: 'name',
  support_email: 'supportEmail',
  timezone: 'timezone',
  currency: 'currency',
  payments_enabled: 'paymentsEnabled',
  fees: 'fees',
  opted_in_methods: 'optedInMethods',
};

/** What no schema can say about the settings: a known time zone and currency, a name. */
export function checkOrganizationSettings(patch: OrganizationPatch): FieldError[] {
  const errors: FieldError[] = [];
  if (patch.name !== undefined && patch.name.trim() === '')
    errors.push({ field: 'name', message: 'is required' });
  if (patch.timezone !== undefined && !isTimeZone(patch.timezone))
    errors.push({ field: 'timezone', message: 'must be an IANA time zone name such as Africa/Kampala' });
  if (patch.currency !== undefined && !isCurrency(patch.currency))
    errors.push({ field: 'currency', message: 'must be an ISO 4217 code such as UGX' });
  return errors;
}

/**
 * Each key once, and only of a method that needs turning on and that this service takes: a method
 * without live settings (no FLUTTERWAVE_* for cards) cannot be turned on.
 */
function checkOptedInMethods(keys: readonly string[], methods: readonly PricedMethod[]): FieldError[] {
  const offered = methods.filter((m) => m.optIn).map((m) => m.key);
  const field = 'opted_in_methods';
  const unknown = keys.filter((key) => !offered.includes(key));
  if (unknown.length > 0) {
    const named = unknown.map((key) => JSON.stringify(key)).join(', ');
    const message =
      offered.length === 0
        ? `names ${named}, but this service takes no payment method that needs turning on`
        : `may name only ${offered.join(', ')}; ${named} is not a payment method to turn on here`;
    return [{ field, message }];
  }
  if (new Set(keys).size !== keys.length) return [{ field, message: 'must name each method once' }];
  return [];
}

export async function updateOrganizationSettings(
  ctx: AppContext,
  { id, patch, ...on }: UpdateOrganizationOptions,
): Promise<Outcome<OrganizationRow>> {
  // a member or client acts on their own organization only
  if (on.organizationId !== undefined && on.organizationId !== id) return notThere;
  const errors = checkOrganizationSettings(patch);
  if (patch.opted_in_methods !== undefined)
    errors.push(...checkOptedInMethods(patch.opted_in_methods, ctx.paymentMethods));
  if (errors.length > 0) return invalid(errors);
  const now = ctx.clock.now();
  const row = await ctx.database.transaction(async (tx) => {
    const before = await findOrganization(tx, id);
    if (!before) return undefined;
    const after = await updateOrganization(
      tx,
      id,
      {
        name: patch.name,
        supportEmail: patch.support_email,
        timezone: patch.timezone,
        currency: patch.currency,
        paymentsEnabled: patch.payments_enabled,
        fees: patch.fees,
        // in the registry's order, so that the same choice in another order changes nothing
        optedInMethods: patch.opted_in_methods && inRegistryOrder(patch.opted_in_methods, ctx.paymentMethods),
      },
      now,
    );
    const changed = (Object.keys(FIELDS) as (keyof OrganizationPatch)[]).filter(
      (field) => JSON.stringify(before[FIELDS[field]]) !== JSON.stringify(after![FIELDS[field]]),
    );
    if (changed.length > 0) {
      await recordAudit(
        tx,
        {
          organizationId: id,
          actor: on.actor,
          action: 'organization.updated',
          targetType: 'organization',
          targetId: id,
          details: { changed },
        },
        now,
      );
    }
    return after;
  });
  return row ? { done: row } : notThere;
}

function inRegistryOrder(keys: readonly string[], methods: readonly PricedMethod[]): string[] {
  return methods.filter((m) => keys.includes(m.key)).map((m) => m.key);
}
