// Members of the organization: who they are, their roles and pending invitations, for every role
// to read; for owners and admins an invite form, role changes, removals (after a confirmation
// page) and revoking invitations. Controls show only where canChangeMember allows them.
import {
  can,
  canChangeMember,
  MEMBER_ROLES,
  ROLE_DESCRIPTIONS,
  type InvitationRow,
  type MemberRole,
  type OrganizationMember,
} from '../../members/index.ts';
import { attr, html, type Html } from '../../platform/index.ts';
import type { FieldErrors } from '../form-body.ts';
import { errorSummary, fieldId, formatTime, input } from './fields.ts';
import { csrfInput, page, type Viewer } from './layout.ts';

export const ROLE_LABELS: Record<MemberRole, string> = {
  owner: 'Owner',
  admin: 'Admin',
  developer: 'Developer',
  viewer: 'Viewer',
  checker: 'Check-in volunteer',
};

const NOTICES: Record<string, string> = {
  role: 'The role was changed. It applies from their next request.',
  unchanged: 'Nothing changed: the member already has that role.',
  removed: 'The member was removed. Their open sessions no longer reach this organization.',
  revoked: 'The invitation was revoked. Its link no longer works.',
};

export function memberNoticeFor(key: string | undefined): string | null {
  return NOTICES[key ?? ''] ?? null;
}

interface InviteForm {
  email: string;
  role: string;
  errors: FieldErrors;
}

export interface MembersView {
  viewer: Viewer;
  members: OrganizationMember[];
  invitations: InvitationRow[];
  notice: string | null;
  /** a problem with a role change or removal (the last owner) */
  problem?: string | null;
  invite: InviteForm;
}

/** The roles the viewer may give a member who now has `target` (for an invitation: the role itself). */
function grantable(actor: MemberRole, target: MemberRole | null): MemberRole[] {
  return MEMBER_ROLES.filter((role) => canChangeMember(actor, target ?? role, role));
}

function soleOwnerOf(members: OrganizationMember[]): string | null {
  const owners = members.filter((m) => m.role === 'owner');
  return owners.length === 1 ? owners[0]!.memberId : null;
}

function nameOf(member: { name: string; email: string }): string {
  return member.name.trim() || member.email;
}

/** The member's role, as a form changing it when the viewer may give them another one. */
function roleControl(view: MembersView, member: OrganizationMember, soleOwner: boolean, whoId: string): Html {
  const actor = view.viewer.current.role;
  const roles = soleOwner || !can(actor, 'members') ? [] : grantable(actor, member.role);
  if (roles.length < 2) {
    return html`<span
      >${ROLE_LABELS[member.role]}${soleOwner ? html` <span class="muted">(the only owner)</span>` : ''}</span
    >`;
  }
  return html`<form method="post" action="/members/${member.memberId}/role" class="inline">
    ${csrfInput(view.viewer.current.session.csrfToken)}
    <select name="role" aria-label="Role of ${nameOf(member)}">
      ${roles.map((role) => html`<option value="${role}" ${attr('selected', role === member.role)}>${ROLE_LABELS[role]}</option>`)}
    </select>
    <button type="submit" aria-describedby="${whoId}">Change role</button>
  </form>`;
}

// Lists rather than tables: each entry wraps its controls under it on a phone.
function memberEntry(view: MembersView, member: OrganizationMember, soleOwnerId: string | null): Html {
  const { current } = view.viewer;
  const soleOwner = member.memberId === soleOwnerId;
  const whoId = `member-${member.memberId}`;
  const removable =
    can(current.role, 'members') && !soleOwner && canChangeMember(current.role, member.role, null);
  return html`<li>
    <div>
      <span id="${whoId}"
        >${member.name.trim() ? html`<strong>${member.name}</strong> ` : ''}${member.email}</span
      >
      ${member.memberId === current.member.id ? html` <span class="muted">(you)</span>` : ''}
      <br /><span class="muted">Joined ${formatTime(member.createdAt)}</span>
    </div>
    <div class="inline">
      ${roleControl(view, member, soleOwner, whoId)}
      ${removable ? html`<a class="button danger" href="/members/${member.memberId}/remove" aria-describedby="${whoId}">Remove</a>` : ''}
    </div>
  </li>`;
}

function membersList(view: MembersView): Html {
  const soleOwnerId = soleOwnerOf(view.members);
  return html`<h2 id="members-title">People (${view.members.length})</h2>
    <ul class="entries" aria-labelledby="members-title">
      ${view.members.map((m) => memberEntry(view, m, soleOwnerId))}
    </ul>`;
}

function invitationEntry(view: MembersView, invitation: InvitationRow): Html {
  const { current } = view.viewer;
  const whoId = `invitation-${invitation.id}`;
  const revocable = can(current.role, 'members') && canChangeMember(current.role, invitation.role, null);
  return html`<li>
    <div>
      <span id="${whoId}">${invitation.email}</span>, as ${ROLE_LABELS[invitation.role]} <br /><span
        class="muted"
        >Expires ${formatTime(invitation.expiresAt)}</span
      >
    </div>
    ${
      revocable
        ? html`<form method="post" action="/members/invitations/${invitation.id}/revoke" class="inline">
            ${csrfInput(current.session.csrfToken)}
            <button type="submit" class="danger" aria-describedby="${whoId}">Revoke</button>
          </form>`
        : ''
    }
  </li>`;
}

function invitationsSection(view: MembersView): Html {
  if (view.invitations.length === 0)
    return html`<h2>Pending invitations</h2>
      <p>No pending invitations.</p>`;
  return html`<h2 id="invitations-title">Pending invitations</h2>
    <ul class="entries" aria-labelledby="invitations-title">
      ${view.invitations.map((i) => invitationEntry(view, i))}
    </ul>`;
}

/** The role select of the invite form, each role's description as its hint. */
function roleField(view: MembersView): Html {
  const id = fieldId('role');
  const error = view.invite.errors.role;
  const describedBy = [`${id}-hint`, error ? `${id}-error` : null].filter(Boolean).join(' ');
  const roles = grantable(view.viewer.current.role, null);
  return html`<div class="field${error ? ' invalid' : ''}">
    <label for="${id}">Role</label>
    <ul class="hint" id="${id}-hint">
      ${roles.map((role) => html`<li><strong>${ROLE_LABELS[role]}</strong>: ${ROLE_DESCRIPTIONS[role]}</li>`)}
    </ul>
    ${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}
    <select
      id="${id}"
      name="role"
      aria-describedby="${describedBy}"
      ${attr('aria-invalid', error ? 'true' : null)}
    >
      ${roles.map((role) => html`<option value="${role}" ${attr('selected', role === view.invite.role)}>${ROLE_LABELS[role]}</option>`)}
    </select>
  </div>`;
}

function inviteForm(view: MembersView): Html {
  return html`<h2>Invite a member</h2>
    <form method="post" action="/members/invitations" novalidate class="panel">
      ${csrfInput(view.viewer.current.session.csrfToken)}
      ${input({ name: 'email', label: 'Email', type: 'email', value: view.invite.email, hint: 'We email them a link to join; you also see the link once, to pass on yourself.', errors: view.invite.errors, autocomplete: 'off', required: true })}
      ${roleField(view)}
      <button type="submit" class="primary">Send invitation</button>
    </form>`;
}

export function renderMembers(view: MembersView): string {
  const manage = can(view.viewer.current.role, 'members');
  const errors = view.invite.errors;
  const main = html`<h1>Members</h1>
    ${view.notice ? html`<p class="notice good" role="status">${view.notice}</p>` : ''}
    ${errorSummary(errors, view.problem)}
    ${
      manage
        ? html`<p>
            Owners and admins invite people, change roles and remove members. Only an owner can make, change
            or remove an owner. You can remove yourself too, as long as the organization keeps another owner.
          </p>`
        : html`<p class="notice">Your role can see the members but not change them.</p>`
    }
    ${membersList(view)} ${invitationsSection(view)} ${manage ? inviteForm(view) : ''}`;
  return page({
    title: 'Members',
    main,
    viewer: view.viewer,
    section: 'members',
    hasErrors: Object.keys(errors).length > 0 || Boolean(view.problem),
  });
}

export interface InvitedView {
  viewer: Viewer;
  email: string;
  role: MemberRole;
  link: string;
  /** whether the email went out; when not, the inviter passes the link on */
  mailed: boolean;
  days: number;
}

export function renderInvited(view: InvitedView): string {
  const main = html`<h1>Invitation created</h1>
    ${
      view.mailed
        ? html`<p class="notice good" role="status">We emailed the invitation to ${view.email}.</p>`
        : html`<p class="notice warn">
            The email to ${view.email} could not be sent. Give them the link below yourself.
          </p>`
    }
    <div class="panel">
      <p>
        ${view.email} is invited as ${ROLE_LABELS[view.role]}. The link works once, for ${view.days} days.
        <strong>Copy it now if you need it: it will not be shown again.</strong>
      </p>
      <h2 id="invitation-link-label">Invitation link</h2>
      <div class="copy-row">
        <code class="secret" id="invitation-link">${view.link}</code>
        <button type="button" data-copy="invitation-link" data-label="Copy invitation link" hidden>
          Copy invitation link
        </button>
      </div>
      <p id="copy-status" role="status" class="muted"></p>
    </div>
    <p><a class="button" href="/members">Back to Members</a></p>`;
  return page({ title: 'Invitation created', main, viewer: view.viewer, section: 'members', script: true });
}

export interface RemoveView {
  viewer: Viewer;
  member: OrganizationMember;
  /** the organization's only owner cannot be removed */
  soleOwner: boolean;
}

export function renderRemoveConfirmation(view: RemoveView): string {
  const { member, viewer } = view;
  const self = member.memberId === viewer.current.member.id;
  const organization = viewer.current.organizationName;
  const who = nameOf(member);
  const main = html`<p><a href="/members">Members</a></p>
    <h1>Remove ${who}?</h1>
    ${
      view.soleOwner
        ? html`<p class="notice bad">
              ${who} is the only owner of ${organization}, which always keeps an owner. Make another member an
              owner first. Nothing was changed.
            </p>
            <p><a class="button" href="/members">Back to Members</a></p>`
        : html`<p class="notice warn">
              ${
                self
                  ? html`You are removing yourself: you lose access to ${organization} at once.`
                  : html`${who}${member.name.trim() ? ` (${member.email})` : ''} loses access to
                    ${organization} at once: their open sessions no longer reach it.`
              }
              ${self ? 'Your' : 'Their'} entries in the audit log stay.
            </p>
            <form method="post" action="/members/${member.memberId}/remove" class="actions">
              ${csrfInput(viewer.current.session.csrfToken)}
              <button type="submit" class="danger primary">Remove member</button>
              <a href="/members">Cancel</a>
            </form>`
    }`;
  return page({ title: `Remove ${who}`, main, viewer, section: 'members' });
}
