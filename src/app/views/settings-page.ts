// The organization's settings page, for its owners: name, support e-mail, and the time zone and
// currency every new event starts with (the app's times are shown in that zone).
import { html } from '../../platform/index.ts';
import type { FieldErrors } from '../form-body.ts';
import { errorSummary, input } from './fields.ts';
import { csrfInput, page, type Viewer } from './layout.ts';

export interface SettingsView {
  viewer: Viewer;
  values: Record<string, string>;
  errors: FieldErrors;
  saved: boolean;
}

export function renderSettings(view: SettingsView): string {
  const { values, errors } = view;
  const field = (name: string, label: string, hint?: string, type?: 'email') =>
    input({ name, label, value: values[name] ?? '', errors, ...(hint && { hint }), ...(type && { type }) });
  const main = html`<h1>Organization settings</h1>
    ${view.saved ? html`<p class="notice good" role="status">The settings were saved.</p>` : ''}
    ${errorSummary(errors)}
    <form method="post" action="/settings" novalidate class="panel">
      ${csrfInput(view.viewer.current.session.csrfToken)}
      ${field('name', 'Name', 'Shown to members, and to buyers in mails and on the checkout.')}
      ${field('support_email', 'Support e-mail', 'Where buyers write when an event names no address of its own.', 'email')}
      ${field('timezone', 'Time zone', "Such as Africa/Kampala: the app's times are shown in it, and new events start in it.")}
      ${field('currency', 'Currency', 'Three letters, such as UGX: new events start in it.')}
      <div class="actions"><button type="submit" class="primary">Save settings</button></div>
    </form>`;
  return page({
    title: 'Organization settings',
    main,
    viewer: view.viewer,
    section: 'settings',
    hasErrors: Object.keys(errors).length > 0,
  });
}
