// The overview (/, sales at a glance), switching organization, and /account: change password,
// list and revoke your sessions, sign out everywhere else. Every role may use them.
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import {
  changePassword,
  listMemberSessions,
  PASSWORD_MIN_LENGTH,
  revokeMemberSession,
  revokeOtherSessions,
  ROLE_DESCRIPTIONS,
  spendSignInAttempt,
  switchOrganization,
} from '../../members/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { clearSessionCookie } from '../app-cookies.ts';
import { formOf, hasErrors, readChoice, readField, type FieldErrors } from '../form-body.ts';
import { seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import { loadSalesOverview } from '../../sales/index.ts';
import { renderAccount } from '../views/account-pages.ts';
import { renderOverview } from '../views/overview-page.ts';
import { tooManyAttempts } from './sign-in.ts';
import { DoneQuery, IdParam, SessionParams, paramsOf, queryOf } from '../app-input.ts';
import { ChangePasswordForm, SwitchOrganizationForm } from '../app-forms.schema.ts';

const OverviewQuery = Type.Object({ event: Type.Optional(IdParam('evt')) });

/** The home page: sales at a glance for `?event=` (an event id) or the next event. */
export function showOverview(ctx: AppContext): Handler {
  return async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    // An event that cannot be one is the 404 page, as one of another organization is.
    const { event: eventId } = queryOf(request, OverviewQuery, { notFound: true });
    const sales = await loadSalesOverview(ctx.database.db, {
      organizationId: viewer.current.organizationId,
      eventId,
      now: ctx.clock.now(),
    });
    if (sales === 'not_found') throw new PageError('not_found', 'not an event of this organization');
    return sendPage(reply, 200, renderOverview(viewer, ROLE_DESCRIPTIONS[viewer.current.role], sales));
  };
}

export function switchOrganizationRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const current = memberOf(request);
    const organizationId = readChoice(
      formOf(request.body),
      'organization_id',
      SwitchOrganizationForm.properties.organization_id,
    );
    if (organizationId === null) throw new PageError('not_found', 'organization id');
    const ok = await switchOrganization(
      ctx.database.db,
      current.session.id,
      current.member.id,
      organizationId,
    );
    if (!ok) throw new PageError('not_found', 'not a member of that organization');
    return seeOther(reply, '/');
  };
}

const NOTICES: Record<string, string> = {
  password: 'Your password was changed. Your other sessions were signed out.',
  revoked: 'The session was revoked.',
  others: 'You were signed out everywhere else.',
};

async function sendAccount(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  form: { status: number; errors: FieldErrors; notice: string | null },
) {
  const viewer = await viewerOf(ctx, request);
  const sessions = await listMemberSessions(
    ctx.database.db,
    viewer.current.member.id,
    ctx.clock.now(),
    ctx.config.appSessions,
  );
  return sendPage(
    reply,
    form.status,
    renderAccount({
      viewer,
      sessions,
      errors: form.errors,
      notice: form.notice,
      minLength: PASSWORD_MIN_LENGTH,
    }),
  );
}

export function showAccount(ctx: AppContext): Handler {
  return (request, reply) => {
    const key = queryOf(request, DoneQuery).done ?? '';
    return sendAccount(ctx, request, reply, { status: 200, errors: {}, notice: NOTICES[key] ?? null });
  };
}

export function changePasswordRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const current = memberOf(request);
    const body = formOf(request.body);
    const errors: FieldErrors = {};
    const currentPassword = readField(body, 'current', ChangePasswordForm.properties.current, errors);
    const next = readField(body, 'next', ChangePasswordForm.properties.next, errors);
    if (hasErrors(errors)) return sendAccount(ctx, request, reply, { status: 422, errors, notice: null });
    // Guessing the current password here counts like guessing it at sign-in.
    const wait = await spendSignInAttempt(ctx, { email: current.member.email, ip: request.ip });
    if (wait !== null) {
      reply.header('Retry-After', String(wait));
      const message = tooManyAttempts(wait);
      return sendAccount(ctx, request, reply, { status: 429, errors: { current: message }, notice: null });
    }
    const result = await changePassword(ctx.database, {
      memberId: current.member.id,
      current: currentPassword,
      next,
      keepSessionId: current.session.id,
      now: ctx.clock.now(),
    });
    if (!result.ok) {
      return sendAccount(ctx, request, reply, {
        status: 422,
        errors: { [result.field]: result.message },
        notice: null,
      });
    }
    return seeOther(reply, '/account?done=password');
  };
}

export function revokeSessionRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const current = memberOf(request);
    const { sessionId } = paramsOf(request, SessionParams);
    const ok = await revokeMemberSession(ctx.database.db, current.member.id, sessionId, ctx.clock.now());
    if (!ok) throw new PageError('not_found', 'no such session of this member');
    if (sessionId === current.session.id) {
      clearSessionCookie(reply, ctx.config);
      return seeOther(reply, '/sign-in?notice=signed_out');
    }
    return seeOther(reply, '/account?done=revoked');
  };
}

export function revokeOtherSessionsRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const current = memberOf(request);
    await revokeOtherSessions(ctx.database.db, current.member.id, current.session.id, ctx.clock.now());
    return seeOther(reply, '/account?done=others');
  };
}
