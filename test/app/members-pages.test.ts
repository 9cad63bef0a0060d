// The Members page of the organizer app: every role reads it; owners and admins invite (mailed to
// the development mailbox, the link shown once), change roles, remove members and revoke
// invitations, each change audited. canChangeMember is enforced on every POST, the last owner is
// kept, and a removed member's session loses the organization on its next request.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listAuditEvents } from '../../src/audit/audit-log.ts';
import { listDevMail } from '../../src/mail/mailbox.ts';
import { createInvitation, listPendingInvitations } from '../../src/members/invitations.ts';
import { findMembershipRole, listOrganizationMembers } from '../../src/members/members.ts';
import { makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import {
  Agent,
  locationOf,
  makeMember,
  makeOrganization,
  signIn,
  textOf,
  type TestMember,
} from './app-helpers.ts';

let h: Harness;
let organizationId: string;
let owner: TestMember;
let ownerAgent: Agent;

before(async () => {
  h = await startHarness();
  organizationId = (await makePartner(h)).organizationId;
  owner = await makeMember(h, organizationId, 'owner');
  ownerAgent = await signIn(h, owner);
});
after(() => h.close());

const db = () => h.service.ctx.database.db;

async function auditOf(orgId = organizationId) {
  return (await listAuditEvents(db(), orgId, { limit: 200 })).rows;
}

async function pending(orgId = organizationId) {
  return listPendingInvitations(db(), orgId, h.clock.now());
}

function roleOf(member: TestMember) {
  return findMembershipRole(db(), member.memberId, member.organizationId);
}

function invitationLinkOf(body: string): string {
  const link = /<code class="secret" id="invitation-link">([^<]+)<\/code>/.exec(body)?.[1];
  assert.ok(link, 'the invitation link is shown');
  return link;
}

describe('members page', () => {
  test('every role reads the members and invitations; only owners and admins get controls', async () => {
    const viewer = await signIn(h, await makeMember(h, organizationId, 'viewer'));
    await ownerAgent.post('/members/invitations', { email: 'pending-reader@example.org', role: 'viewer' });

    const seen = await viewer.get('/members');
    assert.equal(seen.statusCode, 200);
    const text = textOf(seen.body);
    assert.ok(text.includes(owner.email), 'the owner is listed');
    assert.ok(text.includes('pending-reader@example.org'), 'the pending invitation is listed');
    assert.match(text, /Your role can see the members but not change them/);
    assert.doesNotMatch(seen.body, /action="\/members/, 'no write form for a viewer');
    assert.doesNotMatch(seen.body, /href="\/members\/mem_[^"]+\/remove"/);
    assert.match(seen.body, /<a href="\/members"\s+aria-current="page">Members<\/a>/);

    const managed = await ownerAgent.get('/members');
    assert.match(managed.body, /action="\/members\/invitations"/);
    assert.match(managed.body, /<label for="f-role">Role<\/label>/);
    assert.match(
      textOf(managed.body),
      /Viewer ?: Read-only: downloads runner lists; no audit log or buyers' email and phone\./,
    );
    assert.match(managed.body, /action="\/members\/invitations\/inv_[^"]+\/revoke"/);
    assert.match(textOf(managed.body), /as long as the organization keeps another owner/);
  });

  test('an owner invites: mailed to the mailbox, the link shown once, it works, both steps audited', async () => {
    const email = 'new.developer@example.org';
    const res = await ownerAgent.post('/members/invitations', { email: ` ${email} `, role: 'developer' });
    assert.equal(res.statusCode, 201, res.body.slice(0, 500));
    const link = invitationLinkOf(res.body);
    assert.ok(link.startsWith(`${h.config.appUrl.origin}/invitations/`), link);
    assert.match(res.body, /data-copy="invitation-link"/);
    assert.match(textOf(res.body), /We emailed the invitation to new\.developer@example\.org/);

    const mail = (await listDevMail(db())).find((m) => m.to === email);
    assert.ok(mail, 'the invitation is in the development mailbox');
    assert.ok(mail.text.includes(link), 'the mail carries the same link');
    assert.match(mail.subject, /You are invited to/);

    const invited = (await auditOf()).find((e) => e.action === 'member.invited' && e.details.email === email);
    assert.ok(invited, 'member.invited recorded');
    assert.equal(invited.actorMemberId, owner.memberId);
    assert.equal(invited.actorLabel, owner.email);
    assert.deepEqual(invited.details, { email, role: 'developer' });
    assert.equal(invited.targetType, 'invitation');
    assert.ok(invited.ip);
    assert.ok(!JSON.stringify(invited).includes(link.split('/').at(-1)!), 'no token in the entry');

    const path = new URL(link).pathname;
    const invitee = new Agent(h);
    assert.equal((await invitee.get(path)).statusCode, 200);
    const accepted = await invitee.post(path, { name: 'New Dev', password: 'a long enough password' });
    assert.equal(accepted.statusCode, 303, accepted.body.slice(0, 300));
    const overview = await invitee.get('/');
    assert.equal(overview.statusCode, 200);

    const members = await listOrganizationMembers(db(), organizationId);
    const joinedMember = members.find((m) => m.email === email);
    assert.equal(joinedMember?.role, 'developer');
    const joined = (await auditOf()).find(
      (e) => e.action === 'member.joined' && e.targetId === joinedMember!.memberId,
    );
    assert.ok(joined, 'member.joined recorded');
    assert.equal(joined.actorMemberId, joinedMember!.memberId, 'the new member is the actor');
    assert.equal(joined.actorLabel, email);
    assert.deepEqual(joined.details, { email, role: 'developer' });
  });

  test('a bad email or role is a field error (422) and nothing is created', async () => {
    const before = (await pending()).length;
    const audited = (await auditOf()).length;
    const mails = (await listDevMail(db(), 200)).length;
    for (const fields of [
      { email: 'not an email', role: 'developer' },
      { email: '', role: 'viewer' },
      { email: 'fine@example.org', role: 'boss' },
      { email: 'x'.repeat(300) + '@example.org', role: 'viewer' },
    ]) {
      const res = await ownerAgent.post('/members/invitations', fields);
      assert.equal(res.statusCode, 422, JSON.stringify(fields));
      assert.match(res.body, /There is a problem/);
      assert.match(res.body, /<title>Error: Members/);
      const field = fields.role === 'boss' ? 'role' : 'email';
      assert.match(res.body, new RegExp(`<a href="#f-${field}">`), `${field} error linked`);
      assert.match(res.body, new RegExp(`id="f-${field}"[^>]*aria-invalid="true"`));
    }
    const both = await ownerAgent.post('/members/invitations', { email: 'nope', role: '' });
    assert.match(textOf(both.body), /Enter an email address, such as name@example\.org\./);
    assert.match(textOf(both.body), /Choose a role from the list\./);
    assert.equal((await pending()).length, before);
    assert.equal((await auditOf()).length, audited);
    assert.equal((await listDevMail(db(), 200)).length, mails);
  });

  test('an email already a member of the organization is a field error', async () => {
    const before = (await pending()).length;
    const res = await ownerAgent.post('/members/invitations', {
      email: owner.email.toUpperCase(),
      role: 'viewer',
    });
    assert.equal(res.statusCode, 422);
    assert.match(textOf(res.body), /This person is already a member of this organization\./);
    assert.equal((await pending()).length, before);
  });

  test('developers and viewers cannot invite, change, remove or revoke', async () => {
    const target = await makeMember(h, organizationId, 'viewer');
    await ownerAgent.post('/members/invitations', { email: 'keep-me@example.org', role: 'viewer' });
    const invitation = (await pending()).find((i) => i.email === 'keep-me@example.org')!;
    for (const role of ['developer', 'viewer'] as const) {
      const agent = await signIn(h, await makeMember(h, organizationId, role));
      const before = JSON.stringify([await pending(), await listOrganizationMembers(db(), organizationId)]);
      const attempts = [
        await agent.post('/members/invitations', { email: `by-${role}@example.org`, role: 'viewer' }),
        await agent.post(`/members/${target.memberId}/role`, { role: 'admin' }),
        await agent.get(`/members/${target.memberId}/remove`),
        await agent.post(`/members/${target.memberId}/remove`),
        await agent.post(`/members/invitations/${invitation.id}/revoke`),
      ];
      for (const res of attempts) {
        assert.equal(res.statusCode, 403, `${role}: ${res.body.slice(0, 200)}`);
        assert.match(res.body, /Your role cannot do this/);
      }
      assert.equal(
        JSON.stringify([await pending(), await listOrganizationMembers(db(), organizationId)]),
        before,
      );
    }
  });

  test('an admin manages non-owners but cannot touch, make or invite an owner', async () => {
    const admin = await signIn(h, await makeMember(h, organizationId, 'admin'));
    const developer = await makeMember(h, organizationId, 'developer');

    const page = await admin.get('/members');
    assert.doesNotMatch(page.body, new RegExp(`action="/members/${owner.memberId}/role"`));
    assert.doesNotMatch(page.body, new RegExp(`href="/members/${owner.memberId}/remove"`));
    assert.doesNotMatch(page.body, /<option value="owner"/, 'no owner choice for an admin');

    const changed = await admin.post(`/members/${developer.memberId}/role`, { role: 'viewer' });
    assert.equal(changed.statusCode, 303);
    assert.equal(locationOf(changed), '/members?done=role');
    assert.equal(await roleOf(developer), 'viewer');
    const entry = (await auditOf()).find(
      (e) => e.action === 'member.role_changed' && e.targetId === developer.memberId,
    );
    assert.deepEqual(entry?.details, { email: developer.email, from: 'developer', to: 'viewer' });
    assert.match(textOf((await admin.get('/members?done=role')).body), /The role was changed/);

    const before = (await auditOf()).length;
    for (const res of [
      await admin.post(`/members/${developer.memberId}/role`, { role: 'owner' }),
      await admin.post(`/members/${owner.memberId}/role`, { role: 'viewer' }),
      await admin.get(`/members/${owner.memberId}/remove`),
      await admin.post(`/members/${owner.memberId}/remove`),
      await admin.post('/members/invitations', { email: 'would-be-owner@example.org', role: 'owner' }),
    ]) {
      assert.equal(res.statusCode, 403, res.body.slice(0, 200));
    }
    assert.equal(await roleOf(developer), 'viewer');
    assert.equal(await roleOf(owner), 'owner');
    assert.equal((await auditOf()).length, before, 'nothing recorded');
    assert.ok(!(await pending()).some((i) => i.email === 'would-be-owner@example.org'));

    // An owner's invitation is out of an admin's reach too: no Revoke button, and 403.
    const ownerInvitation = (
      await createInvitation(db(), {
        organizationId,
        email: 'invited-owner@example.org',
        role: 'owner',
        invitedBy: owner.memberId,
        now: h.clock.now(),
      })
    ).invitation;
    const listed = await admin.get('/members');
    assert.match(listed.body, /invited-owner@example\.org/);
    assert.doesNotMatch(listed.body, new RegExp(`/members/invitations/${ownerInvitation.id}/revoke`));
    assert.equal((await admin.post(`/members/invitations/${ownerInvitation.id}/revoke`)).statusCode, 403);
    assert.ok(
      (await pending()).some((i) => i.id === ownerInvitation.id),
      'still pending',
    );
  });

  test('the last owner can be neither demoted nor removed; with a second owner they can', async () => {
    const org = await makeOrganization(h);
    const sole = await makeMember(h, org.id, 'owner');
    const agent = await signIn(h, sole);

    const page = await agent.get('/members');
    assert.match(textOf(page.body), /\(the only owner\)/);
    assert.doesNotMatch(page.body, new RegExp(`href="/members/${sole.memberId}/remove"`));

    const demote = await agent.post(`/members/${sole.memberId}/role`, { role: 'admin' });
    assert.equal(demote.statusCode, 409);
    assert.match(textOf(demote.body), /is the only owner, and the organization always keeps an owner/);
    assert.match(textOf(demote.body), /Nothing was changed/);
    const remove = await agent.post(`/members/${sole.memberId}/remove`);
    assert.equal(remove.statusCode, 409);
    const confirm = await agent.get(`/members/${sole.memberId}/remove`);
    assert.equal(confirm.statusCode, 200);
    assert.match(textOf(confirm.body), /Make another member an owner first/);
    assert.doesNotMatch(confirm.body, /Remove member<\/button>/);
    assert.equal(await roleOf(sole), 'owner');
    assert.deepEqual(await auditOf(org.id), []);

    const second = await makeMember(h, org.id, 'owner');
    const demoted = await agent.post(`/members/${sole.memberId}/role`, { role: 'admin' });
    assert.equal(demoted.statusCode, 303);
    assert.equal(await roleOf(sole), 'admin');
    // Now an admin: the remaining owner is out of reach.
    assert.equal((await agent.post(`/members/${second.memberId}/remove`)).statusCode, 403);
    assert.equal(await roleOf(second), 'owner');
  });

  test('removing a member (after a confirmation) cuts their session off from the organization', async () => {
    const target = await makeMember(h, organizationId, 'developer');
    const targetAgent = await signIn(h, target);
    assert.equal((await targetAgent.get('/developers')).statusCode, 200);

    const confirm = await ownerAgent.get(`/members/${target.memberId}/remove`);
    assert.equal(confirm.statusCode, 200);
    assert.match(textOf(confirm.body), /loses access to .* at once/);
    assert.match(confirm.body, /<button type="submit" class="danger primary">Remove member<\/button>/);
    const removed = await ownerAgent.post(`/members/${target.memberId}/remove`);
    assert.equal(removed.statusCode, 303);
    assert.equal(locationOf(removed), '/members?done=removed');
    assert.equal(await roleOf(target), null);
    const entry = (await auditOf()).find(
      (e) => e.action === 'member.removed' && e.targetId === target.memberId,
    );
    assert.deepEqual(entry?.details, { email: target.email, role: 'developer' });
    assert.doesNotMatch(
      (await ownerAgent.get('/members')).body,
      new RegExp(target.email.replace(/\./g, '\\.')),
    );

    // No other organization: the next request is signed out.
    const next = await targetAgent.get('/developers');
    assert.equal(next.statusCode, 303);
    assert.match(locationOf(next), /^\/sign-in/);
  });

  test('a removed member of two organizations is moved to the other one on their next request', async () => {
    const other = await makeOrganization(h, 'Other Org For Removal');
    const target = await makeMember(h, organizationId, 'viewer');
    await makeMember(h, other.id, 'viewer', { email: target.email, password: target.password });
    const targetAgent = await signIn(h, target);
    // Sign-in picks the oldest membership: this organization.
    const before = await targetAgent.get('/members');
    assert.doesNotMatch(before.body, /<p class="org">Other Org For Removal<\/p>/);
    assert.match(before.body, new RegExp(owner.email.replace(/\./g, '\\.')));

    await ownerAgent.get(`/members/${target.memberId}/remove`);
    assert.equal((await ownerAgent.post(`/members/${target.memberId}/remove`)).statusCode, 303);
    const next = await targetAgent.get('/members');
    assert.equal(next.statusCode, 200);
    assert.match(next.body, /<p class="org">Other Org For Removal<\/p>/);
    assert.doesNotMatch(next.body, new RegExp(owner.email.replace(/\./g, '\\.')));
  });

  test('a member may remove themselves while another owner remains', async () => {
    const org = await makeOrganization(h);
    await makeMember(h, org.id, 'owner');
    const leaving = await makeMember(h, org.id, 'owner');
    const agent = await signIn(h, leaving);
    const confirm = await agent.get(`/members/${leaving.memberId}/remove`);
    assert.match(textOf(confirm.body), /You are removing yourself/);
    const res = await agent.post(`/members/${leaving.memberId}/remove`);
    assert.equal(res.statusCode, 303);
    assert.equal(locationOf(res), '/');
    assert.equal(await roleOf(leaving), null);
    assert.match(locationOf(await agent.get('/')), /^\/sign-in/);
  });

  test('revoking an invitation ends its link and is audited', async () => {
    const res = await ownerAgent.post('/members/invitations', {
      email: 'to-revoke@example.org',
      role: 'admin',
    });
    const path = new URL(invitationLinkOf(res.body)).pathname;
    const invitation = (await pending()).find((i) => i.email === 'to-revoke@example.org')!;
    await ownerAgent.get('/members');
    const revoked = await ownerAgent.post(`/members/invitations/${invitation.id}/revoke`);
    assert.equal(revoked.statusCode, 303);
    assert.equal(locationOf(revoked), '/members?done=revoked');
    assert.ok(!(await pending()).some((i) => i.id === invitation.id));
    assert.equal((await new Agent(h).get(path)).statusCode, 410);
    const entry = (await auditOf()).find(
      (e) => e.action === 'member.invitation_revoked' && e.targetId === invitation.id,
    );
    assert.deepEqual(entry?.details, { email: 'to-revoke@example.org', role: 'admin' });
    // Already revoked: nothing pending by that id.
    assert.equal((await ownerAgent.post(`/members/invitations/${invitation.id}/revoke`)).statusCode, 404);
  });
});

describe('inviting without a mailer (production without SMTP)', () => {
  let prod: Harness;
  before(async () => {
    prod = await startHarness({ env: { NODE_ENV: 'production' } });
  });
  after(() => prod.close());

  test('the invitation is made and audited, and the page gives the link to pass on', async () => {
    const orgId = (await makePartner(prod)).organizationId;
    const agent = await signIn(prod, await makeMember(prod, orgId, 'admin'));
    const res = await agent.post('/members/invitations', { email: 'no-mail@example.org', role: 'viewer' });
    assert.equal(res.statusCode, 201, res.body.slice(0, 300));
    assert.match(
      textOf(res.body),
      /The email to no-mail@example\.org could not be sent\. Give them the link below yourself\./,
    );
    const link = invitationLinkOf(res.body);
    const invitations = await listPendingInvitations(prod.service.ctx.database.db, orgId, prod.clock.now());
    assert.deepEqual(
      invitations.map((i) => i.email),
      ['no-mail@example.org'],
    );
    const audit = await listAuditEvents(prod.service.ctx.database.db, orgId, { limit: 10 });
    assert.deepEqual(
      audit.rows.map((e) => e.action),
      ['member.invited'],
    );
    assert.equal((await new Agent(prod).get(new URL(link).pathname)).statusCode, 200);
  });
});
