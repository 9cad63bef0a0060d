// Factories for the members tests: each test makes its own organization and people, with unique
// emails, so tests never depend on one another (or on a shared Redis's counters).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { acceptInvitation, createInvitation } from '../../src/members/invitations.ts';
import type { MemberRole } from '../../src/members/members.schema.ts';
import type { MemberRow } from '../../src/members/members.ts';
import { createOrganization } from '../../src/organizations/organizations.ts';
import type { Harness } from '../helpers/harness.ts';

export const PASSWORD = 'correct horse battery';
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

export function uniqueEmail(label = 'member'): string {
  return `${label}.${randomBytes(5).toString('hex')}@example.org`;
}

/** A made-up IPv4 address in 10/8, different on every call (sign-in limits are per IP). */
export function uniqueIp(): string {
  const b = randomBytes(3);
  return `10.${b[0]}.${b[1]}.${b[2]}`;
}

export async function makeOrg(h: Harness, name = `Club ${randomBytes(3).toString('hex')}`) {
  return createOrganization(h.service.ctx.database.db, { name });
}

export async function invite(h: Harness, organizationId: string, email: string, role: MemberRole = 'owner') {
  return createInvitation(h.service.ctx.database.db, {
    organizationId,
    email,
    role,
    invitedBy: null,
    now: h.clock.now(),
  });
}

/** Invites `email` to the organization and accepts with `password`; returns the member. */
export async function join(
  h: Harness,
  organizationId: string,
  options: { email?: string; role?: MemberRole; password?: string; name?: string } = {},
): Promise<MemberRow> {
  const { token } = await invite(h, organizationId, options.email ?? uniqueEmail(), options.role);
  const result = await acceptInvitation(
    h.service.ctx.database,
    token,
    { password: options.password ?? PASSWORD, ...(options.name !== undefined && { name: options.name }) },
    h.clock.now(),
  );
  assert.ok(result.ok, JSON.stringify(result));
  return result.member;
}
