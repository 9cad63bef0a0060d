// GET and POST /invitations/:token: the invited organization and role, and accepting with a
// password (a new one, or the current one of an existing member), which is a members action
// (members/actions/join-by-invitation.ts). Accepting signs the member in.
import type { AppContext } from '../../context.ts';
import {
  createMemberSession,
  findInvitation,
  joinByInvitation,
  PASSWORD_MIN_LENGTH,
  ROLE_DESCRIPTIONS,
} from '../../members/index.ts';
import { csrfCookieToken, setSessionCookie } from '../app-cookies.ts';
import { formOf, hasErrors, readField, type FieldErrors } from '../form-body.ts';
import { seeOther, sendPage, userAgentOf, type Handler } from '../replies.ts';
import { tooManyAttempts } from './sign-in.ts';
import { renderInvitation, renderInvitationEnded } from '../views/auth-pages.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { TokenParams, paramsOf } from '../app-input.ts';
import { InvitationForm } from '../app-forms.schema.ts';

/** Tokens are base62 text we issued; anything else names no invitation. */
export const TOKEN_PATTERN = /^[A-Za-z0-9]{16,128}$/;

function tokenOf(request: FastifyRequest): string {
  return paramsOf(request, TokenParams).token;
}

function ended(reply: FastifyReply, reason: string) {
  return sendPage(reply, reason === 'unknown' ? 404 : 410, renderInvitationEnded(reason));
}

async function showForm(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  form: { status: number; name: string; errors: FieldErrors },
) {
  const token = tokenOf(request);
  if (!TOKEN_PATTERN.test(token)) return ended(reply, 'unknown');
  const found = await findInvitation(ctx.database.db, token, ctx.clock.now());
  if (!found.ok) return ended(reply, found.reason);
  const role = found.invitation.role;
  return sendPage(
    reply,
    form.status,
    renderInvitation({
      token,
      csrf: csrfCookieToken(request, reply, ctx.config),
      organizationName: found.organizationName,
      role,
      roleDescription: ROLE_DESCRIPTIONS[role],
      email: found.invitation.email,
      existingMember: found.existingMember,
      minLength: PASSWORD_MIN_LENGTH,
      name: form.name,
      errors: form.errors,
    }),
  );
}

export function showInvitation(ctx: AppContext): Handler {
  return (request, reply) => showForm(ctx, request, reply, { status: 200, name: '', errors: {} });
}

export function submitInvitation(ctx: AppContext): Handler {
  return async (request, reply) => {
    const token = tokenOf(request);
    if (!TOKEN_PATTERN.test(token)) return ended(reply, 'unknown');
    const body = formOf(request.body);
    const errors: FieldErrors = {};
    const name = readField(body, 'name', InvitationForm.properties.name, errors);
    const password = readField(body, 'password', InvitationForm.properties.password, errors);
    if (hasErrors(errors)) return showForm(ctx, request, reply, { status: 422, name, errors });

    const outcome = await joinByInvitation(ctx, { token, password, name, ip: request.ip });
    if (!('done' in outcome)) {
      if (outcome.refused === 'too_many_attempts') {
        const wait = outcome.retryAfterSeconds;
        reply.header('Retry-After', String(wait));
        return showForm(ctx, request, reply, {
          status: 429,
          name,
          errors: { password: tooManyAttempts(wait) },
        });
      }
      if (outcome.refused === 'invalid') {
        const message = outcome.errors[0]?.message ?? 'Enter a password.';
        return showForm(ctx, request, reply, { status: 422, name, errors: { password: message } });
      }
      return ended(reply, outcome.refused === 'invitation_ended' ? outcome.reason : 'unknown');
    }
    const result = outcome.done;
    const now = ctx.clock.now();
    const { token: sessionToken } = await createMemberSession(ctx.database.db, {
      memberId: result.member.id,
      organizationId: result.organizationId,
      userAgent: userAgentOf(request),
      now,
      lifetimes: ctx.config.appSessions,
    });
    setSessionCookie(reply, ctx.config, sessionToken);
    return seeOther(reply, '/');
  };
}
