// The signed-out pages: sign in, an invitation, asking for a password reset and setting the new
// password. Labels stay as docs/architecture.md#organizer-app-labels lists them, so outside tests
// can find them.
import { INVITATION_DAYS, RESET_MINUTES } from '../../members/index.ts';
import { html, type Html } from '../../platform/index.ts';
import type { FieldErrors } from '../form-body.ts';
import { csrfInput, page } from './layout.ts';
import { errorSummary, input } from './fields.ts';

export interface SignInView {
  csrf: string;
  email: string;
  next: string | null;
  errors: FieldErrors;
  /** one message for the whole form: wrong credentials, or rate limited */
  problem?: string | null;
  notice?: string | null;
}

export function renderSignIn(view: SignInView): string {
  const main = html`<h1>Sign in</h1>
    ${view.notice ? html`<p class="notice good" role="status">${view.notice}</p>` : ''}
    ${errorSummary(view.errors, view.problem)}
    <form method="post" action="/sign-in" novalidate class="panel">
      ${csrfInput(view.csrf)}
      ${view.next ? html`<input type="hidden" name="next" value="${view.next}" />` : ''}
      ${input({ name: 'email', label: 'Email', type: 'email', value: view.email, autocomplete: 'username', errors: view.errors, required: true })}
      ${input({ name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', errors: view.errors, required: true })}
      <div class="actions">
        <button type="submit" class="primary">Sign in</button>
        <a href="/password-reset">Forgot your password?</a>
      </div>
    </form>`;
  return page({
    title: 'Sign in',
    main,
    hasErrors: Boolean(view.problem) || Object.keys(view.errors).length > 0,
  });
}

export interface InvitationView {
  token: string;
  csrf: string;
  organizationName: string;
  role: string;
  roleDescription: string;
  email: string;
  existingMember: boolean;
  minLength: number;
  name: string;
  errors: FieldErrors;
  problem?: string | null;
}

export function renderInvitation(view: InvitationView): string {
  const passwordHint = view.existingMember
    ? 'You already have an account: enter your current password to join.'
    : `Choose a password of at least ${view.minLength} characters.`;
  const main = html`<h1>Join ${view.organizationName}</h1>
    ${errorSummary(view.errors, view.problem)}
    <div class="panel">
      <p>
        You are invited to <strong>${view.organizationName}</strong> as <strong>${view.role}</strong>, with
        the email address <strong>${view.email}</strong>.
      </p>
      <p class="muted">${view.roleDescription}</p>
      <form method="post" action="/invitations/${view.token}" novalidate>
        ${csrfInput(view.csrf)}
        ${view.existingMember ? '' : input({ name: 'name', label: 'Your name (optional)', value: view.name, autocomplete: 'name', errors: view.errors })}
        ${input({
          name: 'password',
          label: 'Password',
          type: 'password',
          hint: passwordHint,
          autocomplete: view.existingMember ? 'current-password' : 'new-password',
          errors: view.errors,
          required: true,
        })}
        <div class="actions"><button type="submit" class="primary">Accept invitation</button></div>
      </form>
    </div>`;
  return page({
    title: `Join ${view.organizationName}`,
    main,
    hasErrors: Object.keys(view.errors).length > 0,
  });
}

const INVITATION_ENDS: Record<string, [string, string]> = {
  unknown: ['This invitation link is not valid', 'Check that you opened the whole link from the email.'],
  expired: [
    'This invitation has expired',
    `Invitations work for ${INVITATION_DAYS} days. Ask for a new one.`,
  ],
  used: [
    'This invitation has already been used',
    'If you accepted it, sign in with your email and password.',
  ],
  revoked: ['This invitation was withdrawn', 'Ask whoever invited you for a new invitation.'],
};

export function renderInvitationEnded(reason: string): string {
  const [heading, text] = INVITATION_ENDS[reason] ?? INVITATION_ENDS.unknown!;
  return page({
    title: heading,
    main: html`<h1>${heading}</h1>
      <p>${text}</p>
      <p><a href="/sign-in">Sign in</a></p>`,
  });
}

export interface ResetRequestView {
  csrf: string;
  email: string;
  errors: FieldErrors;
  /** false when no mail can be sent (production without SMTP) */
  mailConfigured: boolean;
  sent: boolean;
}

function notSetUp(): Html {
  return html`<p class="notice warn">
    Password reset by email is not set up for this service. Ask an owner of your organization, or the
    operator, to help you back in.
  </p>`;
}

export function renderResetRequest(view: ResetRequestView): string {
  let body: Html;
  if (!view.mailConfigured) body = notSetUp();
  else if (view.sent) {
    body = html`<p class="notice good" role="status">
      If an account has that email address, we have sent it a link to set a new password. The link works for
      ${RESET_MINUTES} minutes, once.
    </p>`;
  } else {
    body = html`${errorSummary(view.errors)}
      <form method="post" action="/password-reset" novalidate class="panel">
        ${csrfInput(view.csrf)}
        <p>Enter the email address you sign in with. We will send you a link to set a new password.</p>
        ${input({ name: 'email', label: 'Email', type: 'email', value: view.email, autocomplete: 'username', errors: view.errors, required: true })}
        <div class="actions"><button type="submit" class="primary">Send reset link</button></div>
      </form>`;
  }
  const main = html`<h1>Reset your password</h1>
    ${body}
    <p><a href="/sign-in">Back to sign in</a></p>`;
  return page({ title: 'Reset your password', main, hasErrors: Object.keys(view.errors).length > 0 });
}

export interface NewPasswordView {
  token: string;
  csrf: string;
  email: string;
  minLength: number;
  errors: FieldErrors;
}

export function renderNewPassword(view: NewPasswordView): string {
  const main = html`<h1>Set a new password</h1>
    ${errorSummary(view.errors)}
    <form method="post" action="/password-reset/${view.token}" novalidate class="panel">
      ${csrfInput(view.csrf)}
      <p>For <strong>${view.email}</strong>. Signing in elsewhere ends when the password changes.</p>
      ${input({
        name: 'password',
        label: 'New password',
        type: 'password',
        hint: `At least ${view.minLength} characters.`,
        autocomplete: 'new-password',
        errors: view.errors,
        required: true,
      })}
      <div class="actions"><button type="submit" class="primary">Set new password</button></div>
    </form>`;
  return page({ title: 'Set a new password', main, hasErrors: Object.keys(view.errors).length > 0 });
}

const RESET_ENDS: Record<string, [string, string]> = {
  unknown: ['This reset link is not valid', 'Check that you opened the whole link from the email.'],
  expired: [
    'This reset link has expired',
    `Reset links work for ${RESET_MINUTES} minutes. Ask for a new one.`,
  ],
  used: ['This reset link has already been used', 'Ask for a new one if you still need it.'],
};

export function renderResetEnded(reason: string): string {
  const [heading, text] = RESET_ENDS[reason] ?? RESET_ENDS.unknown!;
  return page({
    title: heading,
    main: html`<h1>${heading}</h1>
      <p>${text}</p>
      <p><a href="/password-reset">Ask for a new link</a> or <a href="/sign-in">sign in</a>.</p>`,
  });
}
