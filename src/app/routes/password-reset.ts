// /password-reset: ask for a link (the same answer whether or not the email has an account) and
// /password-reset/:token: set the new password. The link is mailed through the service's mailer;
// when the mailer is kind 'none' (production without SMTP) the page says reset is not set up.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import {
  findPasswordReset,
  PASSWORD_MIN_LENGTH,
  passwordResetUrl,
  requestPasswordReset,
  RESET_MINUTES,
  resetPassword,
} from '../../members/index.ts';
import { clearSessionCookie, csrfCookieToken } from '../app-cookies.ts';
import { formOf, hasErrors, readField, type FieldErrors } from '../form-body.ts';
import { seeOther, sendPage, type Handler } from '../replies.ts';
import { renderNewPassword, renderResetEnded, renderResetRequest } from '../views/auth-pages.ts';
import { TOKEN_PATTERN } from './invitation.ts';
import { TokenParams, paramsOf } from '../app-input.ts';
import { NewPasswordForm, ResetRequestForm } from '../app-forms.schema.ts';

function mailConfigured(ctx: AppContext): boolean {
  return ctx.mailer.kind !== 'none';
}

export function showResetRequest(ctx: AppContext): Handler {
  return async (request, reply) => {
    const csrf = csrfCookieToken(request, reply, ctx.config);
    return sendPage(
      reply,
      200,
      renderResetRequest({ csrf, email: '', errors: {}, mailConfigured: mailConfigured(ctx), sent: false }),
    );
  };
}

function resetMail(ctx: AppContext, link: string) {
  return {
    subject: 'Reset your organizer password',
    text: [
      `Someone asked to reset the password of your organizer account at ${ctx.config.appUrl.origin}.`,
      '',
      `Set a new password here: ${link}`,
      '',
      `The link works once, for ${RESET_MINUTES} minutes. If you did not ask for it, ignore this email: your password stays as it is.`,
    ].join('\n'),
  };
}

export function submitResetRequest(ctx: AppContext): Handler {
  return async (request, reply) => {
    const csrf = csrfCookieToken(request, reply, ctx.config);
    const configured = mailConfigured(ctx);
    const body = formOf(request.body);
    const errors: FieldErrors = {};
    const email = readField(body, 'email', ResetRequestForm.properties.email, errors);
    if (configured && hasErrors(errors)) {
      return sendPage(
        reply,
        422,
        renderResetRequest({ csrf, email, errors, mailConfigured: true, sent: false }),
      );
    }
    if (configured) {
      const found = await requestPasswordReset(ctx.database.db, email, ctx.clock.now());
      if (found) {
        const link = passwordResetUrl(ctx.config.appUrl, found.token);
        // Not awaited: the answer comes as soon for an email with an account as for one without,
        // and whether the mail went is for the log only (the mailer waits for it at shutdown).
        void ctx.mailer
          .send({ to: found.member.email, ...resetMail(ctx, link) })
          .catch((error: unknown) => request.log.warn({ err: error }, 'password reset mail not sent'));
      }
    }
    return sendPage(
      reply,
      200,
      renderResetRequest({ csrf, email: '', errors: {}, mailConfigured: configured, sent: configured }),
    );
  };
}

function tokenOf(request: FastifyRequest): string {
  return paramsOf(request, TokenParams).token;
}

function ended(reply: FastifyReply, reason: string) {
  return sendPage(reply, reason === 'unknown' ? 404 : 410, renderResetEnded(reason));
}

async function showNewPasswordForm(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  form: { status: number; errors: FieldErrors },
) {
  const token = tokenOf(request);
  if (!TOKEN_PATTERN.test(token)) return ended(reply, 'unknown');
  const found = await findPasswordReset(ctx.database.db, token, ctx.clock.now());
  if (!found.ok) return ended(reply, found.reason);
  const csrf = csrfCookieToken(request, reply, ctx.config);
  return sendPage(
    reply,
    form.status,
    renderNewPassword({
      token,
      csrf,
      email: found.member.email,
      minLength: PASSWORD_MIN_LENGTH,
      errors: form.errors,
    }),
  );
}

export function showNewPassword(ctx: AppContext): Handler {
  return (request, reply) => showNewPasswordForm(ctx, request, reply, { status: 200, errors: {} });
}

export function submitNewPassword(ctx: AppContext): Handler {
  return async (request, reply) => {
    const token = tokenOf(request);
    if (!TOKEN_PATTERN.test(token)) return ended(reply, 'unknown');
    const errors: FieldErrors = {};
    const password = readField(formOf(request.body), 'password', NewPasswordForm.properties.password, errors);
    if (hasErrors(errors)) return showNewPasswordForm(ctx, request, reply, { status: 422, errors });
    const result = await resetPassword(ctx.database, token, password, ctx.clock.now());
    if (!result.ok) {
      if (result.reason === 'weak_password') {
        return showNewPasswordForm(ctx, request, reply, {
          status: 422,
          errors: { password: result.message },
        });
      }
      return ended(reply, result.reason);
    }
    // Every session of the member was revoked, this browser's included if it had one.
    if (request.appSession?.member.id === result.member.id) clearSessionCookie(reply, ctx.config);
    return seeOther(reply, '/sign-in?notice=reset');
  };
}
