// Members: GET /members (every role reads it), inviting (mailed, and the link shown once), changing
// a role, removing a member after a confirmation page, revoking an invitation. Each write is a
// members action (members/actions/), which decides again who may do it; this file keeps the forms
// and says each refusal in the page's words.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import {
  canChangeMember,
  changeMemberRole,
  INVITATION_DAYS,
  inviteMember,
  isLastOwner,
  listOrganizationMembers,
  listPendingInvitations,
  removeMember,
  revokeInvitation,
  ROLE_DESCRIPTIONS,
  type MemberRole,
  type MembershipOutcome,
  type MembershipTarget,
  type OrganizationMember,
} from '../../members/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { formOf, readChoice, readField, type FieldErrors } from '../form-body.ts';
import { actingOf, seeOther, sendPage, viewerOf, type Handler } from '../replies.ts';
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

export function inviteMemberRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const current = memberOf(request);
    const body = formOf(request.body);
    const errors: FieldErrors = {};
    const email = readField(body, 'email', InviteMemberForm.properties.email, errors);
    const role = readChoice(body, 'role', InviteMemberForm.properties.role);
    if (role === null) errors.role = 'Choose a role from the list.';
    const again = () =>
      sendMembers(ctx, request, reply, 422, { invite: { email, role: role ?? '', errors } });
    if (errors.email) return again();

    // A missing role goes to the action too, so that the email's problem is said with it.
    const outcome = await inviteMember(ctx, {
      ...actingOf(request),
      invitation: { organizationId: current.organizationId, email, role: role ?? '' },
    });
    if (!('done' in outcome)) {
      if (outcome.refused === 'not_permitted')
        throw new PageError('forbidden', 'role may not invite this role');
      if (outcome.refused === 'not_found') throw new PageError('not_found', 'organization');
      if (outcome.refused === 'conflict') errors.email = outcome.message;
      else if (outcome.errors.some((e) => e.field === 'email')) {
        errors.email = 'Enter an email address, such as name@example.org.';
      }
      return again();
    }
    const { invitation, url: link } = outcome.done;
    const mail = invitationMail(ctx, {
      inviter: current.member.name.trim() || current.member.email,
      organization: current.organizationName,
      role: invitation.role,
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
      renderInvited({
        viewer,
        email: invitation.email,
        role: invitation.role,
        link,
        mailed,
        days: INVITATION_DAYS,
      }),
    );
  };
}

/** The membership named in the path, in the current organization. */
function membershipOf(request: FastifyRequest): MembershipTarget {
  return {
    organizationId: memberOf(request).organizationId,
    memberId: paramsOf(request, MemberParams).memberId,
  };
}

/** The answer to a refused change: 404, 403, or the members page saying why (the last owner). */
function refused(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  refusal: Exclude<MembershipOutcome, { done: unknown }>,
) {
  if (refusal.refused === 'not_permitted')
    throw new PageError('forbidden', 'role may not change this member');
  if (refusal.refused !== 'last_owner') throw new PageError('not_found', 'member');
  const who = refusal.member.name.trim() || refusal.member.email;
  return sendMembers(ctx, request, reply, 409, {
    problem: `${who} is the only owner, and the organization always keeps an owner. Make another member an owner first. Nothing was changed.`,
  });
}

export function changeRoleRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const membership = membershipOf(request);
    const role = readChoice(formOf(request.body), 'role', ChangeRoleForm.properties.role);
    if (role === null) {
      return sendMembers(ctx, request, reply, 422, {
        problem: 'Choose a role from the list. Nothing was changed.',
      });
    }
    const outcome = await changeMemberRole(ctx, { ...actingOf(request), membership, role });
    if (!('done' in outcome)) return refused(ctx, request, reply, outcome);
    return seeOther(reply, outcome.done.changed ? '/members?done=role' : '/members?done=unchanged');
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

export function removeMemberRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const membership = membershipOf(request);
    const outcome = await removeMember(ctx, { ...actingOf(request), membership });
    if (!('done' in outcome)) return refused(ctx, request, reply, outcome);
    // Removing yourself: the next request finds the session in another organization, or none.
    if (membership.memberId === memberOf(request).member.id) return seeOther(reply, '/');
    return seeOther(reply, '/members?done=removed');
  };
}

export function revokeInvitationRoute(ctx: AppContext): Handler {
  return async (request, reply) => {
    const { invitationId } = paramsOf(request, InvitationParams);
    const outcome = await revokeInvitation(ctx, { ...actingOf(request), invitationId });
    if (!('done' in outcome)) {
      if (outcome.refused === 'not_permitted') {
        throw new PageError('forbidden', 'role may not revoke this invitation');
      }
      throw new PageError('not_found', 'invitation');
    }
    return seeOther(reply, '/members?done=revoked');
  };
}
