// The organization's settings, for its owners: name, support e-mail, time zone and currency, each
// checked (nothing changes on a refusal) and audited; new events start in the zone and currency;
// the app's times are shown in the zone with its abbreviation; admins and others get 403 and no
// link; the admin API takes the same fields through the same action.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listAuditEvents } from '../../src/audit/audit-log.ts';
import { findOrganization } from '../../src/organizations/organizations.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { admin, createOrg, errorOf, fieldsOf } from '../admin/admin-helpers.ts';
import { makeMember, makeOrganization, signIn, textOf, type Agent } from './app-helpers.ts';

let h: Harness;
let organizationId: string;
let owner: Agent;
let adminAgent: Agent;
let viewer: Agent;

before(async () => {
  h = await startHarness();
  organizationId = (await makeOrganization(h, 'Nile Striders')).id;
  owner = await signIn(h, await makeMember(h, organizationId, 'owner'));
  adminAgent = await signIn(h, await makeMember(h, organizationId, 'admin'));
  viewer = await signIn(h, await makeMember(h, organizationId, 'viewer'));
});
after(() => h.close());

const db = () => h.service.ctx.database.db;
const FORM = {
  name: 'Nile Striders',
  support_email: 'help@nile.example.org',
  timezone: 'Africa/Kampala',
  currency: 'UGX',
};

describe('organization settings', () => {
  test('an owner saves them; the change is audited; new events start in the zone and currency', async () => {
    assert.match((await owner.get('/')).body, /<a href="\/settings" >Settings<\/a>/);
    const page = await owner.get('/settings');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /name="timezone"\s+value="Africa\/Kampala"/);
    const saved = await owner.post('/settings', { ...FORM, timezone: 'Africa/Nairobi', currency: 'kes' });
    assert.equal(saved.statusCode, 303, textOf(saved.body).slice(0, 300));
    const row = (await findOrganization(db(), organizationId))!;
    assert.deepEqual(
      [row.timezone, row.currency, row.supportEmail],
      ['Africa/Nairobi', 'KES', 'help@nile.example.org'],
    );
    assert.match(textOf((await owner.get('/settings?done=saved')).body), /The settings were saved\./);
    const [entry] = (await listAuditEvents(db(), organizationId, { limit: 1 })).rows;
    assert.equal(entry!.action, 'organization.updated');
    assert.deepEqual(entry!.details, { changed: ['support_email', 'timezone', 'currency'] });

    const form = await owner.get('/events/new');
    assert.match(form.body, /name="timezone"\s+value="Africa\/Nairobi"/);
    assert.match(form.body, /name="currency"\s+value="KES"/);
  });

  test('a bad zone, currency, e-mail or an empty name is said next to its field, and nothing changes', async () => {
    const before = await findOrganization(db(), organizationId);
    await owner.get('/settings');
    const res = await owner.post('/settings', {
      name: ' ',
      support_email: 'not an address',
      timezone: 'Mars/Olympus',
      currency: 'XYZW',
    });
    assert.equal(res.statusCode, 422);
    const text = textOf(res.body);
    assert.match(text, /Enter the support e-mail as name@example\.org/);
    const zone = await owner.post('/settings', { ...FORM, timezone: 'Mars/Olympus', currency: 'UGQ' });
    assert.equal(zone.statusCode, 422);
    assert.match(textOf(zone.body), /Enter a time zone name such as Africa\/Kampala\./);
    assert.match(textOf(zone.body), /Enter the currency as three capital letters, such as UGX\./);
    assert.deepEqual(await findOrganization(db(), organizationId), before);
  });

  test("the app's times are in the organization's zone, with its abbreviation", async () => {
    await owner.get('/settings');
    await owner.post('/settings', { ...FORM, timezone: 'Africa/Kampala' });
    const members = textOf((await owner.get('/members')).body);
    const joined = /Joined (\d{4}-\d\d-\d\d \d\d:\d\d) EAT/.exec(members);
    assert.ok(joined, members.slice(0, 400));
    await owner.post('/settings', { ...FORM, timezone: 'UTC' });
    const utc = /Joined (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/.exec(textOf((await owner.get('/members')).body));
    assert.ok(utc);
    // the same instant, three hours apart
    assert.equal(Date.parse(`${joined[1]}Z`) - Date.parse(`${utc[1]}Z`), 3 * 3600_000);
  });

  test('admins and viewers get 403 and no link', async () => {
    for (const agent of [adminAgent, viewer]) {
      assert.doesNotMatch((await agent.get('/')).body, /href="\/settings"/);
      assert.equal((await agent.get('/settings')).statusCode, 403);
      assert.equal((await agent.post('/settings', FORM)).statusCode, 403);
    }
  });
});

describe('the admin API', () => {
  test('takes the zone and currency, checked, and answers them', async () => {
    const org = await createOrg(h, { timezone: 'Africa/Dar_es_Salaam', currency: 'TZS' });
    assert.equal(org.timezone, 'Africa/Dar_es_Salaam');
    const bad = await admin(h, {
      method: 'PATCH',
      url: `/organizations/${org.id}`,
      body: { timezone: 'Nowhere/Else' },
    });
    assert.deepEqual(fieldsOf(errorOf(bad, 400, 'validation_failed')), ['timezone']);
    const ok = await admin(h, {
      method: 'PATCH',
      url: `/organizations/${org.id}`,
      body: { currency: 'USD' },
    });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().data.currency, 'USD');
    const [entry] = (await listAuditEvents(db(), org.id, { limit: 1 })).rows;
    assert.deepEqual(
      [entry!.action, entry!.actorLabel, entry!.details],
      ['organization.updated', 'operator', { changed: ['currency'] }],
    );
  });
});
