// Members: GET /members (every role reads it), inviting (mailed, and the link shown once), changing
// a role, removing a member after a confirmation page, revoking an invitation. canChangeMember
// decides each write again here; each change and its audit entry commit in one transaction.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { recordAudit } from '../../audit/audit-log.ts';
import {
  createInvitation,
  INVITATION_DAYS,
  invitationUrl,
  listPendingInvitations,
  revokeInvitation,
} from '../../members/invitations.ts';
import {
  changeMembershipIn,
  emailProblem,
  findMemberByEmail,
  findMembershipRole,
  isLastOwner,
  listOrganizationMembers,
  type OrganizationMember,
} from '../../members/members.ts';
import { canChangeMember, ROLE_DESCRIPTIONS, type MemberRole } from '../../members/roles.ts';
import { memberOf, PageError } from '../app-access.ts';
import { formOf, hasErrors, readChoice, readField, type FieldErrors } from '../form-body.ts';
import { actorOf, seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
import {
  memberNoticeFor,
  renderInvited,
  renderMembers,
  renderRemoveConfirmation,
  ROLE_LABELS,
  type MembersView,
} from '../views/member-pages.ts';
import { DoneQuery, InvitationParams, MemberParams, paramsOf, queryOf } from '../app-input.ts';
import { ChangeRoleForm, InviteMemberForm } from '../app-forms.schema.ts';

async function sendMembers(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  view: Partial<Omit<MembersView, 'viewer' | 'members' | 'invitations'>>,
) {
  const viewer = await viewerOf(ctx, request);
  const { organizationId } = viewer.current;
  const db = ctx.database.db;
  const [members, invitations] = await Promise.all([
    listOrganizationMembers(db, organizationId),
    listPendingInvitations(db, organizationId, ctx.clock.now()),
  ]);
  return sendPage(
    reply,
    status,
    renderMembers({
      viewer,
      members,
      invitations,
      notice: view.notice ?? null,
      problem: view.problem ?? null,
      invite: view.invite ?? { email: '', role: 'viewer', errors: {} },
    }),
  );
}

export function showMembers(ctx: AppContext): Handler {
  return async (request, reply) => {
    const { done } = queryOf(request, DoneQuery);
    return sendMembers(ctx, request, reply, 200, { notice: memberNoticeFor(done) });
  };
}

/** The member named in the path, if they belong to the current organization. */
async function targetOf(ctx: AppContext, request: FastifyRequest): Promise<OrganizationMember> {
  const { memberId } = paramsOf(request, MemberParams);
  const current = memberOf(request);
  const members = await listOrganizationMembers(ctx.database.db, current.organizationId);
  const target = members.find((m) => m.memberId === memberId);
  if (!target) throw new PageError('not_found', 'member');
  return target;
}

function invitationMail(
  ctx: AppContext,
  input: { inviter: string; organization: string; role: MemberRole; link: string },
) {
  return {
    subject: `You are invited to ${input.organization}`.slice(0, 200),
    text: [
      `${input.inviter} invited you to ${input.organization} in the organizer at ${ctx.config.appUrl.origin}.`,
      `Your role: ${ROLE_LABELS[input.role]}. ${ROLE_DESCRIPTIONS[input.role]}`,
      '',
      `Accept the invitation here: ${input.link}`,
      '',
      `The link works once, for ${INVITATION_DAYS} days. If you did not expect this invitation, ignore this email.`,
    ].join('\n'),
  };
}

/**
 * The invite form's email and role, with a message for each problem: a bad email or role, or an
 * email already a member here. A role the inviter may not give is a 403, as a forged form.
 */
async function readInvite(ctx: AppContext, request: FastifyRequest) {
  const current = memberOf(request);
  const body = formOf(request.body);
  const errors: FieldErrors = {};
  const email = readField(body, 'email', InviteMemberForm.properties.email, errors);
  if (!errors.email && emailProblem(email)) {
    errors.email = 'Enter an email address, such as name@example.org.';
  }
  const role = readChoice(body, 'role', InviteMemberForm.properties.role);
  if (role === null) {
    errors.role = 'Choose a role from the list.';
  } else if (!canChangeMember(current.role, role, role)) {
    throw new PageError('forbidden', 'role may not invite this role');
  }
  if (!hasErrors(errors)) {
    const existing = await findMemberByEmail(ctx.database.db, email);
    if (existing && (await findMembershipRole(ctx.database.db, existing.id, current.organizationId))) {
      errors.email = 'This person is already a member of this organization.';
    }
  }
  return { email, role, errors };
}

export function inviteMember(ctx: AppContext): Handler {
  return async (request, reply) => {
    const current = memberOf(request);
    const { email, role, errors } = await readInvite(ctx, request);
    if (hasErrors(errors) || role === null) {
      return sendMembers(ctx, request, reply, 422, { invite: { email, role: role ?? '', errors } });
    }

    const now = ctx.clock.now();
    const { invitation, token } = await ctx.database.transaction(async (tx) => {
      const created = await createInvitation(tx, {
        organizationId: current.organizationId,
        email,
        role,
        invitedBy: current.member.id,
        now,
      });
      await recordAudit(
        tx,
        {
          organizationId: current.organizationId,
          actor: actorOf(request),
          action: 'member.invited',
          targetType: 'invitation',
          targetId: created.invitation.id,
          details: { email: created.invitation.email, role },
        },
        now,
      );
      return created;
    });
    const link = invitationUrl(ctx.config.appUrl, token);
    const mail = invitationMail(ctx, {
      inviter: current.member.name.trim() || current.member.email,
      organization: current.organizationName,
      role,
      link,
    });
    // Awaited: the page says whether the mail went, and shows the link either way.
    const mailed = await ctx.mailer.send({ to: invitation.email, ...mail }).then(
      () => true,
      (error: unknown) => {
        request.log.warn({ err: error }, 'invitation mail not sent');
        return false;
      },
    );
    const viewer = await viewerOf(ctx, request);
    return sendPage(
      reply,
      201,
      renderInvited({ viewer, email: invitation.email, role, link, mailed, days: INVITATION_DAYS }),
    );
  };
}

type Outcome = { ok: true } | { ok: false; reason: 'not_found' | 'last_owner' | 'forbidden' };

/**
 * Changes the target's role (null: removes them) with its audit entry, in one transaction. The
 * target's role is read again inside it: canChangeMember decides on the role they have now.
 */
function changeMember(
  ctx: AppContext,
  request: FastifyRequest,
  target: OrganizationMember,
  next: MemberRole | null,
): Promise<Outcome> {
  const current = memberOf(request);
  const now = ctx.clock.now();
  return ctx.database.transaction(async (tx): Promise<Outcome> => {
    const role = await findMembershipRole(tx, target.memberId, current.organizationId);
    if (!role) return { ok: false, reason: 'not_found' };
    if (!canChangeMember(current.role, role, next)) return { ok: false, reason: 'forbidden' };
    const changed = await changeMembershipIn(tx, {
      organizationId: current.organizationId,
      memberId: target.memberId,
      role: next,
    });
    if (!changed.ok) return changed;
    await recordAudit(
      tx,
      {
        organizationId: current.organizationId,
        actor: actorOf(request),
        action: next === null ? 'member.removed' : 'member.role_changed',
        targetType: 'member',
        targetId: target.memberId,
        details:
          next === null ? { email: target.email, role } : { email: target.email, from: role, to: next },
      },
      now,
    );
    return { ok: true };
  });
}

/** The answer to a refused change: 404, 403, or the members page saying why (the last owner). */
function refused(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  target: OrganizationMember,
  reason: 'not_found' | 'last_owner' | 'forbidden',
) {
  if (reason === 'not_found') throw new PageError('not_found', 'member');
  if (reason === 'forbidden') throw new PageError('forbidden', 'role may not change this member');
  const who = target.name.trim() || target.email;
  return sendMembers(ctx, request, reply, 409, {
    problem: `${who} is the only owner, and the organization always keeps an owner. Make another member an owner first. Nothing was changed.`,
  });
}

export function changeRole(ctx: AppContext): Handler {
  return async (request, reply) => {
    const current = memberOf(request);
    const target = await targetOf(ctx, request);
    const role = readChoice(formOf(request.body), 'role', ChangeRoleForm.properties.role);
    if (role === null) {
      return sendMembers(ctx, request, reply, 422, {
        problem: 'Choose a role from the list. Nothing was changed.',
      });
    }
    if (!canChangeMember(current.role, target.role, role)) {
      throw new PageError('forbidden', 'role may not change this member');
    }
    if (role === target.role) return seeOther(reply, '/members?done=unchanged');
    const outcome = await changeMember(ctx, request, target, role);
    if (!outcome.ok) return refused(ctx, request, reply, target, outcome.reason);
    return seeOther(reply, '/members?done=role');
  };
}

export function confirmRemove(ctx: AppContext): Handler {
  return async (request, reply) => {
    const current = memberOf(request);
    const target = await targetOf(ctx, request);
    if (!canChangeMember(current.role, target.role, null)) {
      throw new PageError('forbidden', 'role may not remove this member');
    }
    const soleOwner = await isLastOwner(ctx.database.db, current.organizationId, target.memberId);
    const viewer = await viewerOf(ctx, request);
    return sendPage(reply, 200, renderRemoveConfirmation({ viewer, member: target, soleOwner }));
  };
}

export function removeMember(ctx: AppContext): Handler {
  return async (request, reply) => {
    const current = memberOf(request);
    const target = await targetOf(ctx, request);
    if (!canChangeMember(current.role, target.role, null)) {
      throw new PageError('forbidden', 'role may not remove this member');
    }
    const outcome = await changeMember(ctx, request, target, null);
    if (!outcome.ok) return refused(ctx, request, reply, target, outcome.reason);
    // Removing yourself: the next request finds the session in another organization, or none.
    if (target.memberId === current.member.id) return seeOther(reply, '/');
    return seeOther(reply, '/members?done=removed');
  };
}

export function revokeInvitationRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const current = memberOf(request);
    const { invitationId } = paramsOf(request, InvitationParams);
    const now = ctx.clock.now();
    const pending = await listPendingInvitations(ctx.database.db, current.organizationId, now);
    const invitation = pending.find((i) => i.id === invitationId);
    if (!invitation) throw new PageError('not_found', 'invitation');
    if (!canChangeMember(current.role, invitation.role, null)) {
      throw new PageError('forbidden', 'role may not revoke this invitation');
    }
    await ctx.database.transaction(async (tx) => {
      if (!(await revokeInvitation(tx, current.organizationId, invitation.id, now))) return;
      await recordAudit(
        tx,
        {
          organizationId: current.organizationId,
          actor: actorOf(request),
          action: 'member.invitation_revoked',
          targetType: 'invitation',
          targetId: invitation.id,
          details: { email: invitation.email, role: invitation.role },
        },
        now,
      );
    });
    return seeOther(reply, '/members?done=revoked');
  };
}
