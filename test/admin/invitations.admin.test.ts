// The operator's invitations: POST /admin/v1/organizations/{id}/invitations makes a single-use
// link for a person and a role; GET lists the pending ones without their links.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptInvitation, findInvitation, INVITATION_DAYS } from '../../src/members/invitations.ts';
import { listOrganizationMembers } from '../../src/members/members.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { admin, createOrg, dataOf, errorOf, fieldsOf } from './admin-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness();
});
after(() => h.close());

const DAY_MS = 24 * 3600 * 1000;
let counter = 0;
const email = () => `person.${++counter}.${Date.now().toString(36)}@example.org`;

const postInvitation = (orgId: string, body: unknown, key?: string | null) =>
  admin(h, {
    method: 'POST',
    url: `/organizations/${orgId}/invitations`,
    body,
    ...(key !== undefined && { key }),
  });

const tokenOf = (url: string) => url.split('/invitations/')[1]!;

describe('POST /admin/v1/organizations/{id}/invitations', () => {
  test('creates a 7-day single-use link for the email and role', async () => {
    const org = await createOrg(h, { name: 'Mbale Milers' });
    const address = email();
    const startedAt = h.clock.now().getTime();
    const res = await postInvitation(org.id, { email: `  ${address}  `, role: 'owner' });
    assert.equal(res.json().message, 'Invitation created');
    const data = dataOf(res, 201);
    assert.deepEqual(Object.keys(data).sort(), ['email', 'expires_at', 'invitation_url', 'role']);
    assert.equal(data.email, address);
    assert.equal(data.role, 'owner');
    assert.match(data.invitation_url, new RegExp(`^${h.config.appUrl.origin}/invitations/[A-Za-z0-9]{43}$`));
    const lifetime = Date.parse(data.expires_at) - startedAt;
    assert.ok(Math.abs(lifetime - INVITATION_DAYS * DAY_MS) < 60_000, `expires in ${lifetime} ms`);
    assert.match(data.expires_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    // the link is real: it names this organization, and accepting it makes the owner, once
    const token = tokenOf(data.invitation_url);
    const found = await findInvitation(h.service.ctx.database.db, token, h.clock.now());
    assert.ok(found.ok);
    assert.equal(found.organizationName, 'Mbale Milers');
    const database = h.service.ctx.database;
    const accepted = await acceptInvitation(database, token, { password: 'a long password' }, h.clock.now());
    assert.ok(accepted.ok);
    assert.deepEqual(
      (await listOrganizationMembers(database.db, org.id)).map((m) => [m.email, m.role]),
      [[address, 'owner']],
    );
    const again = await acceptInvitation(database, token, { password: 'a long password' }, h.clock.now());
    assert.equal(!again.ok && again.reason, 'used');
  });

  test('takes every role', async () => {
    const org = await createOrg(h);
    for (const role of ['owner', 'admin', 'developer', 'viewer']) {
      assert.equal(dataOf(await postInvitation(org.id, { email: email(), role }), 201).role, role);
    }
  });

  test('a bad email or role is 400 validation_failed naming the field, and creates nothing', async () => {
    const org = await createOrg(h);
    const cases: Array<[unknown, string[]]> = [
      [{ email: 'not-an-email', role: 'owner' }, ['email']],
      [{ email: '', role: 'owner' }, ['email']],
      [{ email: 'a b@example.org', role: 'owner' }, ['email']],
      [{ email: `${'x'.repeat(250)}@example.org`, role: 'owner' }, ['email']],
      [{ email: email(), role: 'superuser' }, ['role']],
      [{ email: email(), role: 'Owner' }, ['role']],
      [{ email: email() }, ['role']],
      [{ role: 'owner' }, ['email']],
      [{ email: 42, role: 'owner' }, ['email']],
      [{ email: email(), role: 'viewer', colour: 'blue' }, ['colour']],
      [{}, ['email', 'role']],
    ];
    for (const [body, fields] of cases) {
      const error = errorOf(await postInvitation(org.id, body), 400, 'validation_failed');
      assert.deepEqual(fieldsOf(error), fields, JSON.stringify(body));
    }
    const role = errorOf(
      await postInvitation(org.id, { email: email(), role: 'boss' }),
      400,
      'validation_failed',
    );
    assert.deepEqual(role.errors, [
      { field: 'role', message: 'must be one of: owner, admin, developer, viewer, checker' },
    ]);
    const bad = errorOf(
      await postInvitation(org.id, { email: 'nope', role: 'owner' }),
      400,
      'validation_failed',
    );
    assert.match(bad.errors![0]!.message, /email address/);
    const listed = dataOf(await admin(h, { url: `/organizations/${org.id}/invitations` }), 200);
    assert.deepEqual(listed.invitations, []);
  });

  test('an unknown organization is 404 not_found', async () => {
    for (const id of ['org_ZZZZZZZZZZZZZZZZZZZZZZZZ', 'org_x', 'evt_ZZZZZZZZZZZZZZZZZZZZZZZZ', 'nothing']) {
      errorOf(await postInvitation(id, { email: email(), role: 'owner' }), 404, 'not_found');
    }
  });

  test('needs the admin key', async () => {
    const org = await createOrg(h);
    errorOf(await postInvitation(org.id, { email: email(), role: 'owner' }, null), 401, 'unauthorized');
    errorOf(
      await postInvitation(org.id, { email: email(), role: 'owner' }, 'adm_wrong'),
      401,
      'unauthorized',
    );
  });
});

describe('GET /admin/v1/organizations/{id}/invitations', () => {
  test('lists pending invitations newest first, never their links', async () => {
    const org = await createOrg(h);
    const other = await createOrg(h);
    const accepted = dataOf(await postInvitation(org.id, { email: email(), role: 'owner' }), 201);
    const database = h.service.ctx.database;
    const token = tokenOf(accepted.invitation_url);
    assert.ok((await acceptInvitation(database, token, { password: 'a long password' }, h.clock.now())).ok);
    const older = dataOf(await postInvitation(org.id, { email: email(), role: 'viewer' }), 201);
    h.clock.advance(1000);
    const newer = dataOf(await postInvitation(org.id, { email: email(), role: 'developer' }), 201);
    await postInvitation(other.id, { email: email(), role: 'owner' });

    const res = await admin(h, { url: `/organizations/${org.id}/invitations` });
    assert.equal(res.json().message, 'Invitations retrieved');
    const listed = dataOf(res, 200).invitations as Array<Record<string, unknown>>;
    assert.deepEqual(
      listed.map((i) => [i.email, i.role]),
      [
        [newer.email, 'developer'],
        [older.email, 'viewer'],
      ],
    );
    for (const item of listed) {
      assert.deepEqual(Object.keys(item).sort(), [
        'created_at',
        'email',
        'expires_at',
        'id',
        'invited_by',
        'role',
      ]);
      assert.match(String(item.id), /^inv_/);
      assert.equal(item.invited_by, null);
    }
    assert.equal(res.body.includes(tokenOf(newer.invitation_url)), false, 'no token in the list');
    assert.equal(res.body.includes('token'), false);

    h.clock.advance(INVITATION_DAYS * DAY_MS);
    const later = dataOf(await admin(h, { url: `/organizations/${org.id}/invitations` }), 200);
    assert.deepEqual(later.invitations, [], 'expired invitations are no longer pending');
  });

  test('an unknown organization is 404 not_found', async () => {
    errorOf(
      await admin(h, { url: '/organizations/org_ZZZZZZZZZZZZZZZZZZZZZZZZ/invitations' }),
      404,
      'not_found',
    );
  });
});
