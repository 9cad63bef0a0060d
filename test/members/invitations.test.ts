// Invitations: single use, seven days, revocable; a new member sets a password, an existing one
// joins another organization with theirs; nothing changes when acceptance is refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import {
  acceptInvitation,
  findInvitation,
  INVITATION_DAYS,
  invitationUrl,
  listPendingInvitations,
  revokePendingInvitation,
} from '../../src/members/invitations.ts';
import { invitations } from '../../src/members/members.schema.ts';
import {
  changeMembership,
  findMemberByEmail,
  listMemberOrganizations,
  listOrganizationMembers,
} from '../../src/members/members.ts';
import { verifyPassword } from '../../src/members/passwords.ts';
import { ApiError } from '../../src/platform/errors.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { DAY_MS, invite, join, makeOrg, MINUTE_MS, PASSWORD, uniqueEmail } from './members-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness();
});
after(() => h.close());

const accept = (token: string, password: string, name?: string) =>
  acceptInvitation(
    h.service.ctx.database,
    token,
    { password, ...(name !== undefined && { name }) },
    h.clock.now(),
  );

async function invitationRow(id: string) {
  const [row] = await h.service.ctx.database.db.select().from(invitations).where(eq(invitations.id, id));
  return row!;
}

describe('createInvitation and findInvitation', () => {
  test('makes a 7-day link whose token is stored only as its hash', async () => {
    const org = await makeOrg(h, 'Lake Runners');
    const email = uniqueEmail('Owner');
    const { invitation, token } = await invite(h, org.id, `  ${email}  `, 'owner');
    assert.match(invitation.id, /^inv_[A-Za-z0-9]{24}$/);
    assert.match(token, /^[A-Za-z0-9]{43}$/);
    assert.equal(invitation.email, email, 'trimmed');
    assert.equal(invitation.role, 'owner');
    assert.equal(invitation.invitedBy, null);
    assert.equal(invitation.expiresAt.getTime() - invitation.createdAt.getTime(), INVITATION_DAYS * DAY_MS);
    assert.notEqual(invitation.tokenHash, token);
    assert.equal(invitation.tokenHash.includes(token), false);

    const found = await findInvitation(h.service.ctx.database.db, token, h.clock.now());
    assert.ok(found.ok);
    assert.equal(found.invitation.id, invitation.id);
    assert.equal(found.organizationName, 'Lake Runners');
    assert.equal(found.existingMember, false);
  });

  test('the link is the APP_URL origin + /invitations/<token>', () => {
    assert.equal(
      invitationUrl(new URL('https://app.example.org/'), 'abc123'),
      'https://app.example.org/invitations/abc123',
    );
    assert.equal(
      invitationUrl(new URL('http://127.0.0.1:4002'), 'T0k3n'),
      'http://127.0.0.1:4002/invitations/T0k3n',
    );
  });

  test('an unknown or malformed token is unknown', async () => {
    const db = h.service.ctx.database.db;
    for (const token of [
      '',
      'x',
      'A'.repeat(43),
      'not a token at all with spaces!!!!!!!!!!!',
      'é'.repeat(43),
    ]) {
      assert.deepEqual(await findInvitation(db, token, h.clock.now()), { ok: false, reason: 'unknown' });
    }
  });

  test('refuses a malformed email with a validation error', async () => {
    const org = await makeOrg(h);
    for (const email of [
      '',
      '   ',
      'no-at-sign',
      'a@b',
      'two words@example.org',
      `${'x'.repeat(250)}@example.org`,
    ]) {
      await assert.rejects(invite(h, org.id, email), (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.code, 'validation_failed');
        assert.equal(error.errors?.[0]?.field, 'email');
        return true;
      });
    }
    assert.deepEqual(await listPendingInvitations(h.service.ctx.database.db, org.id, h.clock.now()), []);
  });

  test('inviting the same email again withdraws the earlier link', async () => {
    const org = await makeOrg(h);
    const email = uniqueEmail();
    const first = await invite(h, org.id, email, 'viewer');
    const second = await invite(h, org.id, email.toUpperCase(), 'admin');
    assert.deepEqual(await findInvitation(h.service.ctx.database.db, first.token, h.clock.now()), {
      ok: false,
      reason: 'revoked',
    });
    const result = await accept(second.token, PASSWORD);
    assert.ok(result.ok);
    const [membership] = await listMemberOrganizations(h.service.ctx.database.db, result.member.id);
    assert.equal(membership?.role, 'admin');
  });
});

describe('acceptInvitation', () => {
  test('a new member sets a password and name, and gets the membership with the invited role', async () => {
    const org = await makeOrg(h, 'Gulu Striders');
    const email = uniqueEmail('New');
    const { token, invitation } = await invite(h, org.id, email, 'developer');
    const result = await accept(token, PASSWORD, '  Achieng Oduya  ');
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.organizationId, org.id);
    assert.match(result.member.id, /^mem_/);
    assert.equal(result.member.email, email);
    assert.equal(result.member.name, 'Achieng Oduya');
    assert.ok(await verifyPassword(PASSWORD, result.member.passwordHash!));
    assert.deepEqual(await listMemberOrganizations(h.service.ctx.database.db, result.member.id), [
      {
        organizationId: org.id,
        organizationName: 'Gulu Striders',
        timeZone: 'Africa/Kampala',
        role: 'developer',
      },
    ]);
    assert.ok((await invitationRow(invitation.id)).acceptedAt);
  });

  test('is single use: the second acceptance is refused as used and changes nothing', async () => {
    const org = await makeOrg(h);
    const { token } = await invite(h, org.id, uniqueEmail(), 'owner');
    const first = await accept(token, PASSWORD);
    assert.ok(first.ok);
    const again = await accept(token, 'another password 123');
    assert.equal(again.ok, false);
    assert.equal(!again.ok && again.reason, 'used');
    assert.match(!again.ok ? again.message : '', /already been used/);
    const member = await findMemberByEmail(h.service.ctx.database.db, first.member.email);
    assert.ok(await verifyPassword(PASSWORD, member!.passwordHash!), 'password unchanged');
    assert.deepEqual(await findInvitation(h.service.ctx.database.db, token, h.clock.now()), {
      ok: false,
      reason: 'used',
    });
  });

  test('two acceptances at once: exactly one succeeds', async () => {
    const org = await makeOrg(h);
    const { token } = await invite(h, org.id, uniqueEmail(), 'owner');
    const results = await Promise.all([accept(token, PASSWORD), accept(token, 'other password 456')]);
    assert.equal(results.filter((r) => r.ok).length, 1, JSON.stringify(results));
    assert.equal(results.find((r) => !r.ok && r.reason === 'used') !== undefined, true);
    assert.equal((await listOrganizationMembers(h.service.ctx.database.db, org.id)).length, 1);
  });

  test('expires after 7 days', async () => {
    const org = await makeOrg(h);
    const { token } = await invite(h, org.id, uniqueEmail(), 'viewer');
    h.clock.advance(INVITATION_DAYS * DAY_MS - MINUTE_MS);
    assert.ok((await findInvitation(h.service.ctx.database.db, token, h.clock.now())).ok, 'still valid');
    h.clock.advance(2 * MINUTE_MS);
    assert.deepEqual(await findInvitation(h.service.ctx.database.db, token, h.clock.now()), {
      ok: false,
      reason: 'expired',
    });
    const result = await accept(token, PASSWORD);
    assert.equal(!result.ok && result.reason, 'expired');
    assert.deepEqual(await listOrganizationMembers(h.service.ctx.database.db, org.id), []);
  });

  test('a revoked invitation is refused; revoking needs the right organization and a pending invitation', async () => {
    const db = h.service.ctx.database.db;
    const org = await makeOrg(h);
    const other = await makeOrg(h);
    const { token, invitation } = await invite(h, org.id, uniqueEmail(), 'admin');
    assert.equal(
      await revokePendingInvitation(db, other.id, invitation.id, h.clock.now()),
      false,
      'other organization',
    );
    assert.equal(
      await revokePendingInvitation(db, org.id, 'inv_ZZZZZZZZZZZZZZZZZZZZZZZZ', h.clock.now()),
      false,
    );
    assert.equal(await revokePendingInvitation(db, org.id, invitation.id, h.clock.now()), true);
    assert.equal(
      await revokePendingInvitation(db, org.id, invitation.id, h.clock.now()),
      false,
      'already revoked',
    );
    const result = await accept(token, PASSWORD);
    assert.equal(!result.ok && result.reason, 'revoked');
    assert.match(!result.ok ? result.message : '', /withdrawn/);
    assert.deepEqual(await listOrganizationMembers(db, org.id), []);
  });

  test('a weak password is refused with the rule, and the invitation stays usable', async () => {
    const org = await makeOrg(h);
    const { token } = await invite(h, org.id, uniqueEmail(), 'owner');
    const weak = await accept(token, 'short');
    assert.equal(!weak.ok && weak.reason, 'weak_password');
    assert.match(!weak.ok ? weak.message : '', /at least 10 characters/);
    assert.deepEqual(await listOrganizationMembers(h.service.ctx.database.db, org.id), []);
    assert.ok((await accept(token, PASSWORD)).ok);
  });

  test('an unknown token is refused', async () => {
    const result = await accept('Z'.repeat(43), PASSWORD);
    assert.equal(!result.ok && result.reason, 'unknown');
  });

  test('an existing member joins a second organization with their own password', async () => {
    const db = h.service.ctx.database.db;
    const first = await makeOrg(h, 'First Club');
    const second = await makeOrg(h, 'Second Club');
    const email = uniqueEmail();
    const member = await join(h, first.id, { email, role: 'owner', name: 'Okello' });
    const { token } = await invite(h, second.id, email.toUpperCase(), 'viewer');

    const found = await findInvitation(db, token, h.clock.now());
    assert.ok(found.ok);
    assert.equal(found.existingMember, true);

    const wrong = await accept(token, 'not my password at all');
    assert.equal(!wrong.ok && wrong.reason, 'wrong_password');
    assert.equal((await listMemberOrganizations(db, member.id)).length, 1, 'nothing joined');

    const joined = await accept(token, PASSWORD, 'Someone Else');
    assert.ok(joined.ok, JSON.stringify(joined));
    assert.equal(joined.member.id, member.id, 'the same account');
    assert.equal(joined.member.name, 'Okello', 'the name is theirs, not the form');
    assert.equal(joined.organizationId, second.id);
    assert.deepEqual(await listMemberOrganizations(db, member.id), [
      { organizationId: first.id, organizationName: 'First Club', timeZone: 'Africa/Kampala', role: 'owner' },
      {
        organizationId: second.id,
        organizationName: 'Second Club',
        timeZone: 'Africa/Kampala',
        role: 'viewer',
      },
    ]);
  });

  test('a member invited again to an organization takes the invited role', async () => {
    const db = h.service.ctx.database.db;
    const org = await makeOrg(h);
    const email = uniqueEmail();
    const member = await join(h, org.id, { email, role: 'viewer' });
    const { token } = await invite(h, org.id, email, 'admin');
    assert.ok((await accept(token, PASSWORD)).ok);
    const members = await listOrganizationMembers(db, org.id);
    assert.deepEqual(
      members.map((m) => [m.memberId, m.role]),
      [[member.id, 'admin']],
    );
  });
});

describe('acceptInvitation keeps an owner', () => {
  test("the organization's only owner invited with a lesser role stays owner; one of two owners takes it", async () => {
    const db = h.service.ctx.database.db;
    const org = await makeOrg(h);
    const email = uniqueEmail();
    const owner = await join(h, org.id, { email, role: 'owner' });
    const demote = await invite(h, org.id, email, 'viewer');
    assert.ok((await accept(demote.token, PASSWORD)).ok);
    assert.deepEqual(
      (await listOrganizationMembers(db, org.id)).map((m) => [m.memberId, m.role]),
      [[owner.id, 'owner']],
    );
    h.clock.advance(1000);
    const second = await join(h, org.id, { role: 'owner' });
    const again = await invite(h, org.id, email, 'viewer');
    assert.ok((await accept(again.token, PASSWORD)).ok);
    assert.deepEqual(
      (await listOrganizationMembers(db, org.id)).map((m) => [m.memberId, m.role]),
      [
        [owner.id, 'viewer'],
        [second.id, 'owner'],
      ],
    );
  });
});

describe('listPendingInvitations', () => {
  test('lists only pending ones of the organization, newest first', async () => {
    const db = h.service.ctx.database.db;
    const org = await makeOrg(h);
    const other = await makeOrg(h);
    const accepted = await invite(h, org.id, uniqueEmail(), 'owner');
    assert.ok((await accept(accepted.token, PASSWORD)).ok);
    const revoked = await invite(h, org.id, uniqueEmail(), 'viewer');
    await revokePendingInvitation(db, org.id, revoked.invitation.id, h.clock.now());
    const older = await invite(h, org.id, uniqueEmail(), 'developer');
    h.clock.advance(1000);
    const newer = await invite(h, org.id, uniqueEmail(), 'admin');
    await invite(h, other.id, uniqueEmail(), 'admin');

    const pending = await listPendingInvitations(db, org.id, h.clock.now());
    assert.deepEqual(
      pending.map((i) => i.id),
      [newer.invitation.id, older.invitation.id],
    );
    h.clock.advance(INVITATION_DAYS * DAY_MS);
    assert.deepEqual(
      await listPendingInvitations(db, org.id, h.clock.now()),
      [],
      'expired ones are not pending',
    );
  });
});

describe('changeMembership', () => {
  test('keeps the last owner: neither demoted nor removed; other members can be', async () => {
    const db = h.service.ctx.database;
    const org = await makeOrg(h);
    const owner = await join(h, org.id, { role: 'owner' });
    const viewer = await join(h, org.id, { role: 'viewer' });
    assert.deepEqual(
      await changeMembership(db, { organizationId: org.id, memberId: owner.id, role: 'admin' }),
      {
        ok: false,
        reason: 'last_owner',
      },
    );
    assert.deepEqual(await changeMembership(db, { organizationId: org.id, memberId: owner.id, role: null }), {
      ok: false,
      reason: 'last_owner',
    });
    assert.deepEqual(
      await changeMembership(db, { organizationId: org.id, memberId: viewer.id, role: 'owner' }),
      { ok: true },
    );
    assert.deepEqual(await changeMembership(db, { organizationId: org.id, memberId: owner.id, role: null }), {
      ok: true,
    });
    assert.deepEqual(
      (await listOrganizationMembers(db.db, org.id)).map((m) => [m.memberId, m.role]),
      [[viewer.id, 'owner']],
    );
    assert.deepEqual(
      await changeMembership(db, { organizationId: org.id, memberId: owner.id, role: 'viewer' }),
      {
        ok: false,
        reason: 'not_found',
      },
    );
  });
});
