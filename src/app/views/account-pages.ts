// The account page (change password,
// your sessions with a Revoke button each, sign out everywhere else).
import type { MemberSessionRow } from '../../members/index.ts';
import { attr, html } from '../../platform/index.ts';
import type { FieldErrors } from '../form-body.ts';
import { errorSummary, formatTime, input } from './fields.ts';
import { csrfInput, page, type Viewer } from './layout.ts';

export interface AccountView {
  viewer: Viewer;
  sessions: MemberSessionRow[];
  errors: FieldErrors;
  notice: string | null;
  minLength: number;
}

function sessionRow(viewer: Viewer, session: MemberSessionRow) {
  const mine = session.id === viewer.current.session.id;
  return html`<tr>
    <td>${formatTime(session.createdAt)}</td>
    <td>${formatTime(session.lastSeenAt)}</td>
    <td>${session.userAgent || html`<span class="muted">unknown</span>`}</td>
    <td>
      ${mine ? html`<strong>This session</strong>` : ''}
      <form method="post" action="/account/sessions/${session.id}/revoke" class="inline">
        ${csrfInput(viewer.current.session.csrfToken)}
        <button
          type="submit"
          class="danger"
          aria-label="Revoke the session started ${formatTime(session.createdAt)}"
        >
          Revoke
        </button>
      </form>
    </td>
  </tr>`;
}

export function renderAccount(view: AccountView): string {
  const { viewer } = view;
  const csrf = viewer.current.session.csrfToken;
  const others = view.sessions.filter((s) => s.id !== viewer.current.session.id).length;
  const main = html`<h1>Account</h1>
    ${view.notice ? html`<p class="notice good" role="status">${view.notice}</p>` : ''}
    <p>Signed in as <strong>${viewer.current.member.email}</strong>.</p>
    <h2 id="password-heading">Change password</h2>
    ${errorSummary(view.errors)}
    <form
      method="post"
      action="/account/password"
      novalidate
      class="panel"
      aria-labelledby="password-heading"
    >
      ${csrfInput(csrf)}
      ${input({ name: 'current', label: 'Current password', type: 'password', autocomplete: 'current-password', errors: view.errors, required: true })}
      ${input({ name: 'next', label: 'New password', type: 'password', hint: `At least ${view.minLength} characters. Your other sessions end when it changes.`, autocomplete: 'new-password', errors: view.errors, required: true })}
      <div class="actions"><button type="submit" class="primary">Change password</button></div>
    </form>
    <h2>Your sessions</h2>
    <div class="table-wrap">
      <table>
        <caption class="muted">
          Where you are signed in, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Last seen</th>
            <th scope="col">Browser</th>
            <th scope="col"><span class="muted">Action</span></th>
          </tr>
        </thead>
        <tbody>
          ${view.sessions.map((s) => sessionRow(viewer, s))}
        </tbody>
      </table>
    </div>
    <form method="post" action="/account/sessions/revoke-others" class="actions">
      ${csrfInput(csrf)}
      <button type="submit" class="danger" ${attr('disabled', others === 0)}>Sign out everywhere else</button>
    </form>`;
  return page({
    title: 'Account',
    main,
    viewer,
    section: 'account',
    hasErrors: Object.keys(view.errors).length > 0,
  });
}
