// Sign-in with email and password. Every attempt counts against a per-account and a per-IP
// limit before any password is checked, and an unknown email costs the same scrypt work as a
// known one, so neither guessing nor timing tells which accounts exist.
import type { AppContext } from '../context.ts';
import { listMemberOrganizations, findMemberByEmail, normalizeEmail, type MemberRow } from './members.ts';
import { verifyNoPassword, verifyPassword } from './passwords.ts';

export type SignInResult =
  | { ok: true; member: MemberRow; organizationId: string }
  /** wrong email or password, or no membership left */
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number };

// Bounds the limiter's key: no account has a longer email (members.ts EMAIL_MAX_LENGTH).
const ACCOUNT_KEY_MAX_LENGTH = 254;

/**
 * Counts one attempt for the account (lower-cased email) and for the IP; the seconds to wait when
 * either is spent, else null. For anything that checks a member's password (sign-in, and the
 * app's own password checks, such as an existing member accepting an invitation).
 */
export async function spendSignInAttempt(
  ctx: AppContext,
  input: { email: string; ip: string },
): Promise<number | null> {
  const account = normalizeEmail(input.email).slice(0, ACCOUNT_KEY_MAX_LENGTH);
  const [byAccount, byIp] = await Promise.all([
    ctx.limiter.hit(`sign-in-account:${account}`, ctx.config.rateLimits.signInAccount),
    ctx.limiter.hit(`sign-in-ip:${input.ip}`, ctx.config.rateLimits.signInIp),
  ]);
  if (byAccount.allowed && byIp.allowed) return null;
  return Math.max(byAccount.retryAfter, byIp.retryAfter, 1);
}

/**
 * Every attempt counts against ctx.config.rateLimits.signInAccount (key by lower-cased email) and
 * signInIp (key by ip) through ctx.limiter.hit; refused before any password check when either is
 * spent. An unknown email costs the same scrypt work as a known one.
 */
export async function signIn(
  ctx: AppContext,
  input: { email: string; password: string; ip: string },
): Promise<SignInResult> {
  const retryAfterSeconds = await spendSignInAttempt(ctx, input);
  if (retryAfterSeconds !== null) return { ok: false, reason: 'rate_limited', retryAfterSeconds };

  const db = ctx.database.db;
  const member = await findMemberByEmail(db, input.email);
  const matches = member?.passwordHash
    ? await verifyPassword(input.password, member.passwordHash)
    : await verifyNoPassword(input.password);
  if (!member || !matches) return { ok: false, reason: 'invalid' };
  const [oldest] = await listMemberOrganizations(db, member.id);
  if (!oldest) return { ok: false, reason: 'invalid' };
  return { ok: true, member, organizationId: oldest.organizationId };
}
