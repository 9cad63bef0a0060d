// GET and POST /sign-in, POST /sign-out. A successful sign-in always starts a new session (new id
// and token); signing out revokes the session on the server, then clears the cookie.
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { createMemberSession, revokeMemberSession, signIn } from '../../members/index.ts';
import { memberOf, safeNext } from '../app-access.ts';
import { clearSessionCookie, csrfCookieToken, setSessionCookie } from '../app-cookies.ts';
import { formOf, hasErrors, readChoice, readField, type FieldErrors } from '../form-body.ts';
import { seeOther, sendPage, userAgentOf, type Handler } from '../replies.ts';
import { renderSignIn } from '../views/auth-pages.ts';
import { queryOf } from '../app-input.ts';
import { SignInForm } from '../app-forms.schema.ts';

const SignInQuery = Type.Object({
  next: Type.Optional(SignInForm.properties.next),
  notice: Type.Optional(Type.String({ maxLength: 100 })),
});

const NOTICES: Record<string, string> = {
  reset: 'Your password was changed. Sign in with your new password.',
  signed_out: 'You are signed out.',
};

export function showSignIn(ctx: AppContext): Handler {
  return async (request, reply) => {
    const query = queryOf(request, SignInQuery);
    const next = safeNext(query.next);
    if (request.appSession) return seeOther(reply, next ?? '/');
    const notice = NOTICES[query.notice ?? ''] ?? null;
    const csrf = csrfCookieToken(request, reply, ctx.config);
    return sendPage(reply, 200, renderSignIn({ csrf, email: '', next, errors: {}, notice }));
  };
}

/** The refusal of a password check over the sign-in limits: whole minutes to wait, at least one. */
export function tooManyAttempts(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return `Too many sign-in attempts. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`;
}

export function submitSignIn(ctx: AppContext): Handler {
  return async (request, reply) => {
    const body = formOf(request.body);
    const errors: FieldErrors = {};
    const email = readField(body, 'email', SignInForm.properties.email, errors);
    const password = readField(body, 'password', SignInForm.properties.password, errors);
    const next = safeNext(readChoice(body, 'next', SignInForm.properties.next));
    const csrf = csrfCookieToken(request, reply, ctx.config);
    const again = (status: number, problem: string | null) =>
      sendPage(reply, status, renderSignIn({ csrf, email, next, errors, problem }));
    if (hasErrors(errors)) return again(422, null);

    const result = await signIn(ctx, { email, password, ip: request.ip });
    if (!result.ok && result.reason === 'rate_limited') {
      reply.header('Retry-After', String(result.retryAfterSeconds));
      return again(429, tooManyAttempts(result.retryAfterSeconds));
    }
    if (!result.ok) return again(422, 'The email address or the password is not right.');

    const now = ctx.clock.now();
    const previous = request.appSession;
    if (previous) await revokeMemberSession(ctx.database.db, previous.member.id, previous.session.id, now);
    const { token } = await createMemberSession(ctx.database.db, {
      memberId: result.member.id,
      organizationId: result.organizationId,
      userAgent: userAgentOf(request),
      now,
      lifetimes: ctx.config.appSessions,
    });
    setSessionCookie(reply, ctx.config, token);
    return seeOther(reply, next ?? '/');
  };
}

export function signOut(ctx: AppContext): Handler {
  return async (request, reply) => {
    const current = memberOf(request);
    await revokeMemberSession(ctx.database.db, current.member.id, current.session.id, ctx.clock.now());
    clearSessionCookie(reply, ctx.config);
    return seeOther(reply, '/sign-in?notice=signed_out');
  };
}
