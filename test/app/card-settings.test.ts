// Card payments turned on and off from the organization's settings page: audited, the catalog
// version bumped, and the event detail's `card` priced then null; a value the service does not take
// is refused with a clear error and changes nothing; the admin API takes the same field through the
// same action. A service without card settings shows the choice disabled, and saving keeps it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listAuditEvents } from '../../src/audit/audit-log.ts';
import { findOrganization, updateOrganization } from '../../src/organizations/organizations.ts';
import { PAYMENT_METHOD_REGISTRY } from '../../src/payments/index.ts';
import { bearer, getToken, makeEvent, makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { admin, errorOf, fieldsOf } from '../admin/admin-helpers.ts';
import { makeMember, signIn, textOf, type Agent } from './app-helpers.ts';

/** The card checkbox of the settings page, its white space collapsed. */
const cardBox = (body: string) => /<input[^>]*value="card"[^>]*>/.exec(body)?.[0].replace(/\s+/g, ' ') ?? '';

const FORM = {
  name: 'Nile Striders',
  support_email: 'help@nile.example.org',
  timezone: 'Africa/Kampala',
  currency: 'UGX',
};

describe('card payments on a service that takes them', () => {
  let h: Harness;
  let organizationId: string;
  let owner: Agent;
  let readEvent: () => Promise<{ payment_methods: string[]; ticket_types: { card: unknown }[] }>;

  before(async () => {
    h = await startHarness();
    const partner = await makePartner(h);
    organizationId = partner.organizationId;
    owner = await signIn(h, await makeMember(h, organizationId, 'owner'));
    const event = await makeEvent(h, partner, {
      ticket_types: [{ name: '21 km', price_minor: 50_000, capacity: 100 }],
    });
    const token = await getToken(h, partner);
    readEvent = async () =>
      (await h.service.api.inject({ url: `/v1/events/${event.id}`, headers: bearer(token) })).json().data;
  });
  after(() => h.close());

  const db = () => h.service.ctx.database.db;
  const lastAudit = async () => (await listAuditEvents(db(), organizationId, { limit: 1 })).rows[0]!;

  test('an owner turns cards on and off; each change is audited and reprices the events', async () => {
    const page = await owner.get('/settings');
    assert.equal(
      cardBox(page.body),
      '<input type="checkbox" id="f-opted_in_methods-card" name="opted_in_methods" value="card" />',
    );
    assert.match(
      textOf(page.body),
      /Card payments Visa or Mastercard, typed on Flutterwave's own page; events in UGX and KES offer them, with a service fee of 3\.8 % by card\./,
    );
    assert.equal((await readEvent()).ticket_types[0]!.card, null);
    const version = (await findOrganization(db(), organizationId))!.catalogVersion;

    const on = await owner.post('/settings', { ...FORM, opted_in_methods: 'card' });
    assert.equal(on.statusCode, 303, textOf(on.body).slice(0, 300));
    const row = (await findOrganization(db(), organizationId))!;
    assert.deepEqual(row.optedInMethods, ['card']);
    assert.ok(row.catalogVersion > version, 'the catalog version is bumped');
    const entry = await lastAudit();
    assert.equal(entry.action, 'organization.updated');
    assert.ok((entry.details as { changed: string[] }).changed.includes('opted_in_methods'));
    assert.match(cardBox((await owner.get('/settings')).body), /value="card" checked \/>/);
    const priced = await readEvent();
    assert.deepEqual(priced.payment_methods, ['momo', 'airtel', 'card']);
    // UGX 50,000 at the default 3.8 %
    assert.deepEqual(priced.ticket_types[0]!.card, { laces_fee_minor: 1_900, total_minor: 51_900 });

    const off = await owner.post('/settings', FORM);
    assert.equal(off.statusCode, 303);
    const after = (await findOrganization(db(), organizationId))!;
    assert.deepEqual(after.optedInMethods, []);
    assert.ok(after.catalogVersion > row.catalogVersion);
    assert.deepEqual((await lastAudit()).details, { changed: ['opted_in_methods'] });
    const unpriced = await readEvent();
    assert.deepEqual(unpriced.payment_methods, ['momo', 'airtel']);
    assert.equal(unpriced.ticket_types[0]!.card, null);
  });

  test('a method the form does not offer is refused next to the choice, and nothing changes', async () => {
    await owner.post('/settings', FORM);
    const before = await findOrganization(db(), organizationId);
    for (const value of ['momo', 'paypal', ['card', 'bitcoin']]) {
      await owner.get('/settings');
      const res = await owner.post('/settings', { ...FORM, name: 'Renamed', opted_in_methods: value });
      assert.equal(res.statusCode, 422, String(value));
      assert.match(textOf(res.body), /Choose only the payment methods listed here\./);
      assert.deepEqual(await findOrganization(db(), organizationId), before);
    }
  });

  test('the admin API turns cards on with opted_in_methods, checked by the same action', async () => {
    const patch = (body: unknown) =>
      admin(h, { method: 'PATCH', url: `/organizations/${organizationId}`, body });
    const before = await findOrganization(db(), organizationId);
    for (const bad of [['momo'], ['card', 'card'], ['visa']]) {
      const res = await patch({ opted_in_methods: bad });
      const error = errorOf(res, 400, 'validation_failed');
      assert.deepEqual(fieldsOf(error), ['opted_in_methods']);
      assert.deepEqual(await findOrganization(db(), organizationId), before);
    }
    const refused = errorOf(await patch({ opted_in_methods: ['visa'] }), 400, 'validation_failed');
    assert.match(
      JSON.stringify(refused),
      /may name only card; \\"visa\\" is not a payment method to turn on here/,
    );

    const ok = await patch({ opted_in_methods: ['card'] });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json().data.opted_in_methods, ['card']);
    const entry = await lastAudit();
    assert.deepEqual([entry.actorLabel, entry.details], ['operator', { changed: ['opted_in_methods'] }]);
    assert.deepEqual((await readEvent()).payment_methods, ['momo', 'airtel', 'card']);
    const off = await patch({ opted_in_methods: [] });
    assert.deepEqual(off.json().data.opted_in_methods, []);
  });
});

describe('card payments on a service without card settings', () => {
  let h: Harness;
  let organizationId: string;
  let owner: Agent;

  before(async () => {
    h = await startHarness({
      service: { paymentMethods: PAYMENT_METHOD_REGISTRY.filter((m) => m.key !== 'card') },
    });
    organizationId = (await makePartner(h)).organizationId;
    owner = await signIn(h, await makeMember(h, organizationId, 'owner'));
  });
  after(() => h.close());

  const db = () => h.service.ctx.database.db;

  test('the choice is shown disabled with why, and saving the form keeps what was chosen', async () => {
    await updateOrganization(db(), organizationId, { optedInMethods: ['card'] }, h.clock.now());
    const page = await owner.get('/settings');
    assert.match(cardBox(page.body), /value="card" checked disabled \/>/);
    assert.match(
      textOf(page.body),
      /This service is not set up to take them yet, so no event can offer them\./,
    );
    const saved = await owner.post('/settings', { ...FORM, name: 'Still cards' });
    assert.equal(saved.statusCode, 303);
    const row = (await findOrganization(db(), organizationId))!;
    assert.deepEqual([row.name, row.optedInMethods], ['Still cards', ['card']]);
  });

  test('the admin API refuses card, saying the service takes none', async () => {
    const res = await admin(h, {
      method: 'PATCH',
      url: `/organizations/${organizationId}`,
      body: { opted_in_methods: ['card'] },
    });
    const error = errorOf(res, 400, 'validation_failed');
    assert.match(JSON.stringify(error), /this service takes no payment method that needs turning on/);
  });
});
