// Organizer members, roles, invitations, sign-in sessions and password resets.
export { changeMemberRole } from './actions/change-member-role.ts';
export { inviteMember } from './actions/invite-member.ts';
export { joinByInvitation } from './actions/join-by-invitation.ts';
export type { MembershipOutcome, MembershipTarget } from './actions/membership-change.ts';
export { removeMember } from './actions/remove-member.ts';
export { revokeInvitation } from './actions/revoke-invitation.ts';
export {
  createInvitation,
  findInvitation,
  INVITATION_DAYS,
  invitationUrl,
  listPendingInvitations,
} from './invitations.ts';
export type { InvitationRow } from './invitations.ts';
export { deleteEndedMemberRecords } from './member-retention.ts';
export {
  EMAIL_MAX_LENGTH,
  isLastOwner,
  isMemberRole,
  listMemberOrganizations,
  listOrganizationMembers,
} from './members.ts';
export type { MemberOrganization, OrganizationMember } from './members.ts';
export {
  changePassword,
  findPasswordReset,
  passwordResetUrl,
  requestPasswordReset,
  RESET_MINUTES,
  resetPassword,
} from './password-resets.ts';
export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.ts';
export { can, canChangeMember, MEMBER_ROLES, PERMISSIONS, ROLE_DESCRIPTIONS } from './roles.ts';
export type { MemberRole, Permission } from './roles.ts';
export {
  createMemberSession,
  findCurrentSession,
  listMemberSessions,
  revokeMemberSession,
  revokeOtherSessions,
  switchOrganization,
} from './sessions.ts';
export type { CurrentSession, MemberSessionRow } from './sessions.ts';
export { signIn, spendSignInAttempt } from './sign-in.ts';
