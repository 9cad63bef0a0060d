// GET and POST /settings: the organization's name, support e-mail, time zone and currency, for its
// owners (access 'organization_settings'). The organizations module's action checks and audits the
// change; the form only reads what was typed.
import type { AppContext } from '../../context.ts';
import { findOrganization, updateOrganizationSettings } from '../../organizations/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { EVENT_FORM_PATTERNS, OrganizationSettingsForm } from '../app-forms.schema.ts';
import { DoneQuery, queryOf } from '../app-input.ts';
import { formOf, hasErrors, readField, type FieldErrors } from '../form-body.ts';
import { actingOf, seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderSettings } from '../views/settings-page.ts';

/** The action's field messages, as the form says them. */
const MESSAGES: Record<string, string> = {
  name: 'Enter the organization name.',
  timezone: 'Enter a time zone name such as Africa/Kampala.',
  currency: 'Enter the currency as three capital letters, such as UGX.',
};

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
    return sendPage(reply, 200, renderSettings({ viewer, values, errors: {}, saved }));
  };
}

export function saveSettings(ctx: AppContext): Handler {
  return async (request, reply) => {
    const body = formOf(request.body);
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
        id: memberOf(request).organizationId,
        patch: {
          name: values.name!,
          support_email: values.support_email!,
          timezone: values.timezone!,
          currency: values.currency,
        },
      });
      if ('done' in outcome) return seeOther(reply, '/settings?done=saved');
      if (outcome.refused !== 'invalid') throw new PageError('not_found', 'organization');
      for (const e of outcome.errors) errors[e.field] = MESSAGES[e.field] ?? e.message;
    }
    const viewer = await viewerOf(ctx, request);
    return sendPage(reply, 422, renderSettings({ viewer, values, errors, saved: false }));
  };
}
