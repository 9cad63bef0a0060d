// GET and POST /settings: the organization's name, support e-mail, time zone, currency and the
// payment methods it turned on (cards), for its owners (access 'organization_settings'). The
// organizations module's action checks and audits the change; the form only reads what was typed.
import type { AppContext } from '../../context.ts';
import {
  findOrganization,
  updateOrganizationSettings,
  type OrganizationPatch,
  type OrganizationRow,
} from '../../organizations/index.ts';
import { methodFee } from '../../events/index.ts';
import { PAYMENT_METHOD_CATALOGUE } from '../../payments/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { EVENT_FORM_PATTERNS, OrganizationSettingsForm } from '../app-forms.schema.ts';
import { DoneQuery, queryOf } from '../app-input.ts';
import { formOf, hasErrors, readField, type FieldErrors } from '../form-body.ts';
import { actingOf, seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderSettings, type OptInChoice } from '../views/settings-page.ts';

/** The action's field messages, as the form says them. */
const MESSAGES: Record<string, string> = {
  name: 'Enter the organization name.',
  timezone: 'Enter a time zone name such as Africa/Kampala.',
  currency: 'Enter the currency as three capital letters, such as UGX.',
  opted_in_methods: 'Choose only the payment methods listed here.',
};

/** "3.8 %" (and a fixed part when the schedule has one): what buyers pay on top by this method. */
function feeWords(fee: { percent_bp: number; fixed_minor: number }): string {
  const percent = `${(fee.percent_bp / 100).toLocaleString('en')} %`;
  return fee.fixed_minor > 0 ? `${percent} plus a fixed part` : percent;
}

/** The methods an organization may turn on, checked as `checked` says; those the service lacks disabled. */
function optInChoices(
  ctx: AppContext,
  organization: OrganizationRow,
  checked: readonly string[],
): OptInChoice[] {
  return PAYMENT_METHOD_CATALOGUE.filter((m) => 'optIn' in m && m.optIn).map((m) => ({
    key: m.key,
    label: `${m.labels.en.name} payments`,
    hint:
      `${m.labels.en.network}, typed on ${m.provider}'s own page; events in ${m.currencies.join(' and ')} ` +
      `offer them, with a service fee of ${feeWords(methodFee(organization.fees, m))} by ${m.labels.en.name.toLowerCase()}.`,
    checked: checked.includes(m.key),
    available: ctx.paymentMethods.some((taken) => taken.key === m.key),
  }));
}

/**
 * The checked methods, when the service takes any method to turn on; otherwise nothing (a disabled
 * checkbox sends nothing, which must not turn off what the organization chose before).
 */
function optInPatch(
  ctx: AppContext,
  checked: readonly string[],
): Pick<OrganizationPatch, 'opted_in_methods'> {
  return ctx.paymentMethods.some((m) => m.optIn) ? { opted_in_methods: [...checked] } : {};
}

export function showSettings(ctx: AppContext): Handler {
  return async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    const organization = await findOrganization(ctx.database.db, memberOf(request).organizationId);
    if (!organization) throw new PageError('not_found', 'organization');
    const values = {
      name: organization.name,
      support_email: organization.supportEmail,
      timezone: organization.timezone,
      currency: organization.currency,
    };
    const saved = queryOf(request, DoneQuery).done === 'saved';
    const optIns = optInChoices(ctx, organization, organization.optedInMethods);
    return sendPage(reply, 200, renderSettings({ viewer, values, optIns, errors: {}, saved }));
  };
}

export function saveSettings(ctx: AppContext): Handler {
  return async (request, reply) => {
    const body = formOf(request.body);
    const organizationId = memberOf(request).organizationId;
    const checked = body.all('opted_in_methods');
    const errors: FieldErrors = {};
    const values: Record<string, string> = {};
    for (const [name, field] of Object.entries(OrganizationSettingsForm.properties))
      values[name] = readField(body, name, field, errors);
    values.currency = values.currency!.toUpperCase();
    if (
      !errors.support_email &&
      values.support_email &&
      !EVENT_FORM_PATTERNS.email.test(values.support_email)
    )
      errors.support_email = 'Enter the support e-mail as name@example.org, or leave it empty.';
    if (!hasErrors(errors)) {
      const outcome = await updateOrganizationSettings(ctx, {
        ...actingOf(request),
        id: organizationId,
        patch: {
          name: values.name!,
          support_email: values.support_email!,
          timezone: values.timezone!,
          currency: values.currency,
          ...optInPatch(ctx, checked),
        },
      });
      if ('done' in outcome) return seeOther(reply, '/settings?done=saved');
      if (outcome.refused !== 'invalid') throw new PageError('not_found', 'organization');
      for (const e of outcome.errors) errors[e.field] = MESSAGES[e.field] ?? e.message;
    }
    const viewer = await viewerOf(ctx, request);
    const organization = await findOrganization(ctx.database.db, organizationId);
    if (!organization) throw new PageError('not_found', 'organization');
    // a method the service lacks keeps what was stored, as its disabled checkbox shows it
    const optIns = optInChoices(ctx, organization, checked).map((c) =>
      c.available ? c : { ...c, checked: organization.optedInMethods.includes(c.key) },
    );
    return sendPage(reply, 422, renderSettings({ viewer, values, optIns, errors, saved: false }));
  };
}
