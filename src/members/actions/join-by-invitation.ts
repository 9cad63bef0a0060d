// Accepting an invitation: a new member sets a password, an existing one proves it is them with
// theirs (those guesses count as sign-in attempts). The membership, the spent invitation and the
// entry commit together; the one who joined is the entry's actor.
import { recordAudit } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { invalid, notThere, type Outcome } from '../../platform/index.ts';
import { acceptInvitationIn, findInvitation } from '../invitations.ts';
import type { MemberRow } from '../members.ts';
import type { MemberRole } from '../roles.ts';
import { spendSignInAttempt } from '../sign-in.ts';

export interface JoinByInvitationOptions {
  token: string;
  password: string;
  name?: string | undefined;
  /** the request's client IP: the entry's, and a key of the sign-in limit */
  ip: string;
}

/** The link worked once but no longer does; an unknown link is not found. */
interface InvitationEnded {
  refused: 'invitation_ended';
  reason: 'expired' | 'used' | 'revoked';
}

/** Too many password guesses for the account or from the IP: try again after the wait. */
interface TooManyAttempts {
  refused: 'too_many_attempts';
  retryAfterSeconds: number;
}

interface Joined {
  member: MemberRow;
  organizationId: string;
  role: MemberRole;
}

type JoinOutcome = Outcome<Joined, InvitationEnded | TooManyAttempts>;

function ended(reason: 'unknown' | InvitationEnded['reason']): JoinOutcome {
  return reason === 'unknown' ? notThere : { refused: 'invitation_ended', reason };
}

export async function joinByInvitation(
  ctx: AppContext,
  { token, password, name, ip }: JoinByInvitationOptions,
): Promise<JoinOutcome> {
  const now = ctx.clock.now();
  const found = await findInvitation(ctx.database.db, token, now);
  if (!found.ok) return ended(found.reason);
  if (found.existingMember) {
    const wait = await spendSignInAttempt(ctx, { email: found.invitation.email, ip });
    if (wait !== null) return { refused: 'too_many_attempts', retryAfterSeconds: wait };
  }
  return ctx.database.transaction(async (tx): Promise<JoinOutcome> => {
    const accepted = await acceptInvitationIn(tx, token, { password, ...(name && { name }) }, now);
    if (!accepted.ok) {
      if (accepted.reason === 'wrong_password' || accepted.reason === 'weak_password') {
        return invalid([{ field: 'password', message: accepted.message }]);
      }
      return ended(accepted.reason);
    }
    const { member, organizationId, role } = accepted;
    await recordAudit(
      tx,
      {
        organizationId,
        actor: { memberId: member.id, label: member.email, ip },
        action: 'member.joined',
        targetType: 'member',
        targetId: member.id,
        details: { email: member.email, role },
      },
      now,
    );
    return { done: { member, organizationId, role } };
  });
}
