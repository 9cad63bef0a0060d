// Member and invitation writes are actions (src/members/actions/). Inviting, which the admin API and
// the organizer app both expose, leaves the same audit entry from each, only the actor differs;
// revoking, joining, changing a role and removing are the app's. A refused action changes nothing
// and records nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OPERATOR_LABEL, listAuditEvents } from '../../src/audit/audit-log.ts';
import { changeMemberRole } from '../../src/members/actions/change-member-role.ts';
import { removeMember } from '../../src/members/actions/remove-member.ts';
import { listPendingInvitations } from '../../src/members/invitations.ts';
import { findMembershipRole, listOrganizationMembers } from '../../src/members/members.ts';
import { admin } from '../admin/admin-helpers.ts';
import { Agent, makeMember, makeOrganization, signIn, type TestMember } from '../app/app-helpers.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { uniqueEmail } from './members-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness();
});
after(() => h.close());

const db = () => h.service.ctx.database.db;

/** The organization's audit entries, oldest first, as the log keeps them. */
async function entriesOf(organizationId: string) {
  const { rows } = await listAuditEvents(db(), organizationId, { limit: 100 });
  return rows.reverse().map((row) => ({
    action: row.action,
    targetType: row.targetType,
    targetId: row.targetId,
    details: row.details,
    actor: row.actorLabel,
    actorMemberId: row.actorMemberId,
  }));
}

/** Everything a refused action must leave as it was. */
async function stateOf(organizationId: string) {
  return JSON.stringify([
    await entriesOf(organizationId),
    await listOrganizationMembers(db(), organizationId),
    await listPendingInvitations(db(), organizationId, h.clock.now()),
  ]);
}

/** One interface's way to invite; `link` only when the invitation was made. */
interface Inviter {
  invite(email: string, role: string): Promise<{ status: number; link?: string }>;
  /** the audit entries' actor label */
  actor: string;
}

function adminInviter(organizationId: string): Inviter {
  return {
    actor: OPERATOR_LABEL,
    invite: async (email, role) => {
      const res = await admin(h, {
        method: 'POST',
        url: `/organizations/${organizationId}/invitations`,
        body: { email, role },
      });
      const data = res.statusCode === 201 ? (res.json() as { data: { invitation_url: string } }).data : null;
      return { status: res.statusCode, ...(data && { link: data.invitation_url }) };
    },
  };
}

async function appInviter(owner: TestMember): Promise<Inviter> {
  const agent = await signIn(h, owner);
  return {
    actor: owner.email,
    invite: async (email, role) => {
      await agent.get('/members');
      const res = await agent.post('/members/invitations', { email, role });
      const link = /id="invitation-link">([^<]+)</.exec(res.body)?.[1];
      return { status: res.statusCode, ...(link && { link }) };
    },
  };
}

/** A new organization with its owner. */
async function organizationWithOwner() {
  const org = await makeOrganization(h);
  const owner = await makeMember(h, org.id, 'owner');
  return { org, owner };
}

describe('inviting, from the admin API and from the app', () => {
  test('both leave the same entry; only the actor differs; a second invitation replaces the first', async () => {
    const seen: Array<Array<{ action: string; targetType: string; details: unknown }>> = [];
    const email = uniqueEmail('invited');
    for (const make of [
      async (owner: TestMember) => adminInviter(owner.organizationId),
      (owner: TestMember) => appInviter(owner),
    ]) {
      const { org, owner } = await organizationWithOwner();
      const via = await make(owner);
      const first = await via.invite(` ${email} `, 'viewer');
      assert.equal(first.status, 201);
      const second = await via.invite(email.toUpperCase(), 'developer');
      assert.equal(second.status, 201);
      assert.ok(second.link?.startsWith(`${h.config.appUrl.origin}/invitations/`), second.link);

      const pending = await listPendingInvitations(db(), org.id, h.clock.now());
      assert.deepEqual(
        pending.map((i) => [i.email, i.role]),
        [[email.toUpperCase(), 'developer']],
        'only the newest link works',
      );
      const entries = await entriesOf(org.id);
      assert.deepEqual(
        entries.map((e) => e.actor),
        [via.actor, via.actor],
      );
      assert.equal(entries[1]!.targetId, pending[0]!.id);
      seen.push(entries.map(({ action, targetType, details }) => ({ action, targetType, details })));
    }
    const [viaAdmin, viaApp] = seen;
    assert.deepEqual(viaAdmin, viaApp);
    assert.equal(viaAdmin![0]!.action, 'member.invited');
    assert.equal(viaAdmin![0]!.targetType, 'invitation');
  });

  test('a bad email, or someone already a member, is refused by both and changes nothing', async () => {
    for (const [name, make, status] of [
      [
        'admin API',
        async (owner: TestMember) => adminInviter(owner.organizationId),
        { bad: 400, member: 409 },
      ],
      ['app', (owner: TestMember) => appInviter(owner), { bad: 422, member: 422 }],
    ] as const) {
      const { org, owner } = await organizationWithOwner();
      const via = await make(owner);
      const before = await stateOf(org.id);
      assert.equal((await via.invite('not an email', 'viewer')).status, status.bad, name);
      assert.equal((await via.invite(owner.email.toUpperCase(), 'viewer')).status, status.member, name);
      assert.equal(await stateOf(org.id), before, `${name}: nothing changed`);
    }
  });
});

describe('member actions in the app', () => {
  test('revoking, joining, changing a role and removing: one entry each, by whoever acted', async () => {
    const { org, owner } = await organizationWithOwner();
    const agent = await signIn(h, owner);
    const via = await appInviter(owner);
    const pendingOf = async (email: string) =>
      (await listPendingInvitations(db(), org.id, h.clock.now())).find((i) => i.email === email);

    const withdrawn = uniqueEmail('withdrawn');
    await via.invite(withdrawn, 'admin');
    const invitation = (await pendingOf(withdrawn))!;
    await agent.get('/members');
    assert.equal((await agent.post(`/members/invitations/${invitation.id}/revoke`)).statusCode, 303);

    const joining = uniqueEmail('joining');
    const { link } = await via.invite(joining, 'developer');
    const path = new URL(link!).pathname;
    const newcomer = new Agent(h);
    await newcomer.get(path);
    assert.equal((await newcomer.post(path, { password: 'a long enough password' })).statusCode, 303);
    const joined = (await listOrganizationMembers(db(), org.id)).find((m) => m.email === joining)!;

    await agent.get('/members');
    assert.equal((await agent.post(`/members/${joined.memberId}/role`, { role: 'viewer' })).statusCode, 303);
    // The same role again: nothing to change, nothing recorded.
    assert.equal((await agent.post(`/members/${joined.memberId}/role`, { role: 'viewer' })).statusCode, 303);
    await agent.get(`/members/${joined.memberId}/remove`);
    assert.equal((await agent.post(`/members/${joined.memberId}/remove`)).statusCode, 303);

    const entries = await entriesOf(org.id);
    assert.deepEqual(
      entries.map(({ action, targetId, details, actor }) => [action, targetId, details, actor]),
      [
        ['member.invited', invitation.id, { email: withdrawn, role: 'admin' }, owner.email],
        ['member.invitation_revoked', invitation.id, { email: withdrawn, role: 'admin' }, owner.email],
        ['member.invited', entries[2]!.targetId, { email: joining, role: 'developer' }, owner.email],
        ['member.joined', joined.memberId, { email: joining, role: 'developer' }, joining],
        [
          'member.role_changed',
          joined.memberId,
          { email: joining, from: 'developer', to: 'viewer' },
          owner.email,
        ],
        ['member.removed', joined.memberId, { email: joining, role: 'viewer' }, owner.email],
      ],
    );
    assert.equal(entries[3]!.actorMemberId, joined.memberId, 'the one who joined acted');
    assert.ok(entries.every((e, i) => i === 3 || e.actorMemberId === owner.memberId));
  });

  test('refused: the last owner, a role out of reach, a wrong password, a spent link; nothing changes', async () => {
    const { org, owner } = await organizationWithOwner();
    const agent = await signIn(h, owner);
    const adminMember = await makeMember(h, org.id, 'admin');
    const adminAgent = await signIn(h, adminMember);
    const via = await appInviter(owner);
    const ownerInvite = uniqueEmail('future.owner');
    await via.invite(ownerInvite, 'owner');
    const invitation = (await listPendingInvitations(db(), org.id, h.clock.now()))[0]!;
    // Someone with an account elsewhere, invited here: they must prove it is them.
    const elsewhere = await makeMember(h, (await makeOrganization(h)).id, 'viewer');
    const { link } = await via.invite(elsewhere.email, 'viewer');
    const path = new URL(link!).pathname;
    const before = await stateOf(org.id);

    await agent.get('/members');
    assert.equal((await agent.post(`/members/${owner.memberId}/role`, { role: 'admin' })).statusCode, 409);
    assert.equal((await agent.post(`/members/${owner.memberId}/remove`)).statusCode, 409);
    await adminAgent.get('/members');
    for (const res of [
      await adminAgent.post(`/members/${owner.memberId}/role`, { role: 'viewer' }),
      await adminAgent.post(`/members/${owner.memberId}/remove`),
      await adminAgent.post(`/members/invitations/${invitation.id}/revoke`),
      await adminAgent.post('/members/invitations', { email: uniqueEmail(), role: 'owner' }),
    ]) {
      assert.equal(res.statusCode, 403, res.body.slice(0, 200));
    }
    const guesser = new Agent(h);
    await guesser.get(path);
    assert.equal((await guesser.post(path, { password: 'not their password' })).statusCode, 422);
    assert.equal(await stateOf(org.id), before);

    assert.equal((await guesser.post(path, { password: elsewhere.password })).statusCode, 303);
    const joined = await stateOf(org.id);
    assert.equal((await guesser.post(path, { password: elsewhere.password })).statusCode, 410);
    assert.equal(await stateOf(org.id), joined, 'a spent link joins no one again');
  });

  test("an action reaches only the actor's organization; the operator reaches any", async () => {
    const { org, owner } = await organizationWithOwner();
    const target = await makeMember(h, org.id, 'developer');
    const stranger = await organizationWithOwner();
    const ctx = h.service.ctx;
    const membership = { organizationId: org.id, memberId: target.memberId };
    const before = await stateOf(org.id);

    const foreign = { memberId: stranger.owner.memberId, label: stranger.owner.email, ip: null };
    assert.deepEqual(
      await changeMemberRole(ctx, {
        actor: foreign,
        organizationId: stranger.org.id,
        membership,
        role: 'viewer',
      }),
      { refused: 'not_found' },
    );
    assert.deepEqual(
      await removeMember(ctx, { actor: foreign, organizationId: stranger.org.id, membership }),
      { refused: 'not_found' },
    );
    assert.equal(await stateOf(org.id), before);

    const operator = { memberId: null, label: OPERATOR_LABEL, ip: null };
    const changed = await changeMemberRole(ctx, { actor: operator, membership, role: 'viewer' });
    assert.ok('done' in changed && changed.done.changed);
    assert.equal(await findMembershipRole(db(), target.memberId, org.id), 'viewer');
    const [entry] = (await entriesOf(org.id)).slice(-1);
    assert.equal(entry!.actor, OPERATOR_LABEL);
    assert.deepEqual(entry!.details, { email: target.email, from: 'developer', to: 'viewer' });
    // The last owner stays, whoever asks.
    const last = await removeMember(ctx, {
      actor: operator,
      membership: { organizationId: org.id, memberId: owner.memberId },
    });
    assert.equal('refused' in last && last.refused, 'last_owner');
  });
});
