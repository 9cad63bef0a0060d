// GET and POST /invitations/:token: the invited organization and role, and accepting with a
// password (a new one, or the current one of an existing member). Accepting signs the member in.
import type { AppContext } from '../../context.ts';
import { recordAudit } from '../../audit/audit-log.ts';
import { acceptInvitationIn, findInvitation } from '../../members/invitations.ts';
import { PASSWORD_MIN_LENGTH } from '../../members/passwords.ts';
import { ROLE_DESCRIPTIONS } from '../../members/roles.ts';
import { createMemberSession } from '../../members/sessions.ts';
import { spendSignInAttempt } from '../../members/sign-in.ts';
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

    const now = ctx.clock.now();
    // An existing member proves the invitation with their password: those guesses count as sign-ins.
    const found = await findInvitation(ctx.database.db, token, now);
    if (!found.ok) return ended(reply, found.reason);
    if (found.existingMember) {
      const wait = await spendSignInAttempt(ctx, { email: found.invitation.email, ip: request.ip });
      if (wait !== null) {
        reply.header('Retry-After', String(wait));
        const message = tooManyAttempts(wait);
        return showForm(ctx, request, reply, { status: 429, name, errors: { password: message } });
      }
    }
    // The join and its audit entry commit together; the new member is the one who acted.
    const result = await ctx.database.transaction(async (tx) => {
      const accepted = await acceptInvitationIn(tx, token, { password, ...(name && { name }) }, now);
      if (!accepted.ok) return accepted;
      await recordAudit(
        tx,
        {
          organizationId: accepted.organizationId,
          actor: { memberId: accepted.member.id, label: accepted.member.email, ip: request.ip },
          action: 'member.joined',
          targetType: 'member',
          targetId: accepted.member.id,
          details: { email: accepted.member.email, role: accepted.role },
        },
        now,
      );
      return accepted;
    });
    if (!result.ok) {
      if (result.reason === 'wrong_password' || result.reason === 'weak_password') {
        return showForm(ctx, request, reply, { status: 422, name, errors: { password: result.message } });
      }
      return ended(reply, result.reason);
    }
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
