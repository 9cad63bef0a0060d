import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, getToken, startHarness, type Harness } from '../helpers/harness.ts';
import {
  admin,
  createClientFor,
  createEventFor,
  createOrg,
  dataOf,
  errorOf,
  fieldsOf,
  partnerOf,
} from './admin-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness();
});
after(() => h.close());

describe('POST /admin/v1/organizations', () => {
  test('creates an organization with default fees, payments off and no support email', async () => {
    const res = await admin(h, { method: 'POST', url: '/organizations', body: { name: 'Kampala Runners' } });
    assert.equal(res.json().message, 'Organization created');
    const org = dataOf(res, 201);
    assert.match(org.id, /^org_[A-Za-z0-9]{24}$/);
    assert.deepEqual(
      Object.keys(org).sort(),
      [
        'created_at',
        'fees',
        'id',
        'name',
        'currency',
        'opted_in_methods',
        'payments_enabled',
        'support_email',
        'timezone',
        'updated_at',
      ].sort(),
    );
    assert.equal(org.name, 'Kampala Runners');
    assert.deepEqual([org.timezone, org.currency], ['Africa/Kampala', 'UGX']);
    assert.equal(org.payments_enabled, false);
    assert.equal(org.support_email, '');
    // cards cost more to take, and are offered only once turned on
    assert.deepEqual(org.fees, {
      momo: { percent_bp: 350, fixed_minor: 0 },
      airtel: { percent_bp: 350, fixed_minor: 0 },
      mpesa: { percent_bp: 350, fixed_minor: 0 },
      card: { percent_bp: 380, fixed_minor: 0 },
    });
    assert.deepEqual(org.opted_in_methods, []);
    assert.match(org.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test('takes payments_enabled, support_email and a partial fee schedule', async () => {
    const org = await createOrg(h, {
      name: 'Gulu Striders 🏃',
      payments_enabled: true,
      support_email: 'help@gulu.example',
      fees: { airtel: { percent_bp: 500, fixed_minor: 100 }, card: { percent_bp: 290, fixed_minor: 500 } },
    });
    assert.equal(org.name, 'Gulu Striders 🏃');
    assert.equal(org.payments_enabled, true);
    assert.equal(org.support_email, 'help@gulu.example');
    assert.deepEqual(org.fees, {
      momo: { percent_bp: 350, fixed_minor: 0 },
      airtel: { percent_bp: 500, fixed_minor: 100 },
      mpesa: { percent_bp: 350, fixed_minor: 0 },
      card: { percent_bp: 290, fixed_minor: 500 },
    });
  });

  test('names every invalid field in one validation_failed answer', async () => {
    const res = await admin(h, {
      method: 'POST',
      url: '/organizations',
      body: {
        name: '   ',
        payments_enabled: 'yes',
        support_email: 'not-an-email',
        fees: {
          momo: { percent_bp: 10001, fixed_minor: 0 },
          airtel: { percent_bp: 10, fixed_minor: -1 },
          visa: {},
        },
        colour: 'blue',
      },
    });
    const body = errorOf(res, 400, 'validation_failed');
    assert.deepEqual(fieldsOf(body), [
      'colour',
      'fees.airtel.fixed_minor',
      'fees.momo.percent_bp',
      'fees.visa',
      'name',
      'payments_enabled',
      'support_email',
    ]);
    const byField = Object.fromEntries(body.errors!.map((e) => [e.field, e.message]));
    assert.equal(byField.colour, 'is not a recognised field');
    assert.equal(byField.name, 'must not be blank');
    assert.equal(byField.support_email, 'must be an email address (or empty)');
    assert.equal(byField['fees.momo.percent_bp'], 'must be <= 10000');
  });

  test('requires a name, and fees per method need both numbers as integers', async () => {
    const missing = errorOf(
      await admin(h, { method: 'POST', url: '/organizations', body: {} }),
      400,
      'validation_failed',
    );
    assert.deepEqual(missing.errors, [{ field: 'name', message: 'is required' }]);
    const fees = errorOf(
      await admin(h, {
        method: 'POST',
        url: '/organizations',
        body: { name: 'x', fees: { momo: { percent_bp: 1.5 } } },
      }),
      400,
      'validation_failed',
    );
    assert.deepEqual(fieldsOf(fees), ['fees.momo.fixed_minor', 'fees.momo.percent_bp']);
  });
});

describe('GET /admin/v1/organizations', () => {
  test('lists organizations, including new ones', async () => {
    const a = await createOrg(h);
    const b = await createOrg(h);
    const res = await admin(h, { url: '/organizations' });
    const data = dataOf(res, 200);
    const ids = data.organizations.map((o: { id: string }) => o.id);
    assert.ok(ids.includes(a.id) && ids.includes(b.id));
    assert.ok(ids.indexOf(a.id) < ids.indexOf(b.id), 'oldest first');
    assert.deepEqual(
      data.organizations.find((o: { id: string }) => o.id === a.id),
      a,
    );
  });
});

describe('GET /admin/v1/organizations/{id}', () => {
  test('reads one organization', async () => {
    const org = await createOrg(h, { support_email: 'a@b.example' });
    const res = await admin(h, { url: `/organizations/${org.id}` });
    assert.deepEqual(dataOf(res, 200), org);
  });

  test('answers not_found for ids that do not exist or cannot exist', async () => {
    for (const id of [
      'org_doesnotexist0000000000000',
      'evt_3kTzQ8bN1cV7xY2wR5mP0aLd',
      'org_',
      'x',
      'ORG_ABC',
    ]) {
      const body = errorOf(await admin(h, { url: `/organizations/${id}` }), 404, 'not_found');
      assert.equal(body.message, 'No such organization.');
    }
  });
});

describe('PATCH /admin/v1/organizations/{id}', () => {
  test('updates name, payments, support email; fees merge per method', async () => {
    const org = await createOrg(h);
    h.clock.advance(1000);
    const res = await admin(h, {
      method: 'PATCH',
      url: `/organizations/${org.id}`,
      body: {
        name: 'Renamed',
        payments_enabled: true,
        support_email: 'ops@renamed.example',
        fees: { airtel: { percent_bp: 500, fixed_minor: 100 } },
      },
    });
    assert.equal(res.json().message, 'Organization updated');
    const updated = dataOf(res, 200);
    assert.equal(updated.name, 'Renamed');
    assert.equal(updated.payments_enabled, true);
    assert.equal(updated.support_email, 'ops@renamed.example');
    assert.deepEqual(updated.fees, {
      momo: { percent_bp: 350, fixed_minor: 0 },
      airtel: { percent_bp: 500, fixed_minor: 100 },
      mpesa: { percent_bp: 350, fixed_minor: 0 },
      card: { percent_bp: 380, fixed_minor: 0 },
    });
    assert.equal(updated.created_at, org.created_at);
    assert.ok(Date.parse(updated.updated_at) > Date.parse(org.updated_at));
    // A later patch of the other method keeps the first change.
    const again = dataOf(
      await admin(h, {
        method: 'PATCH',
        url: `/organizations/${org.id}`,
        body: {
          fees: { momo: { percent_bp: 0, fixed_minor: 250 }, card: { percent_bp: 420, fixed_minor: 0 } },
        },
      }),
      200,
    );
    assert.deepEqual(again.fees, {
      momo: { percent_bp: 0, fixed_minor: 250 },
      airtel: { percent_bp: 500, fixed_minor: 100 },
      mpesa: { percent_bp: 350, fixed_minor: 0 },
      card: { percent_bp: 420, fixed_minor: 0 },
    });
    assert.equal(again.name, 'Renamed');
    assert.deepEqual(dataOf(await admin(h, { url: `/organizations/${org.id}` }), 200), again);
  });

  test('fees and payments_enabled reach the partner API at once', async () => {
    const org = await createOrg(h);
    const event = await createEventFor(h, org.id);
    const client = await createClientFor(h, org.id, { scopes: ['events:read'] });
    const token = await getToken(h, partnerOf(client));
    const read = async () => {
      const res = await h.service.api.inject({ url: `/v1/events/${event.event_id}`, headers: bearer(token) });
      return dataOf(res, 200);
    };
    const before = await read();
    assert.equal(before.payments_enabled, false);
    assert.deepEqual(before.payment_methods, []);
    assert.equal(before.ticket_types[0].laces_fee_minor, 1050); // 3.5% of 30000
    await admin(h, {
      method: 'PATCH',
      url: `/organizations/${org.id}`,
      body: {
        payments_enabled: true,
        fees: { momo: { percent_bp: 200, fixed_minor: 0 }, airtel: { percent_bp: 500, fixed_minor: 100 } },
      },
    });
    const after = await read();
    assert.equal(after.payments_enabled, true);
    assert.deepEqual(after.payment_methods, ['momo', 'airtel']);
    assert.equal(after.ticket_types[0].laces_fee_minor, 600);
    assert.deepEqual(after.ticket_types[0].airtel, { laces_fee_minor: 1600, total_minor: 31600 });
  });

  test('refuses invalid fields and changes nothing', async () => {
    const org = await createOrg(h);
    const res = await admin(h, {
      method: 'PATCH',
      url: `/organizations/${org.id}`,
      body: {
        name: '',
        payments_enabled: null,
        fees: { momo: { percent_bp: -1, fixed_minor: 0 } },
        id: 'org_x',
      },
    });
    const body = errorOf(res, 400, 'validation_failed');
    assert.deepEqual(fieldsOf(body), ['fees.momo.percent_bp', 'id', 'name', 'payments_enabled']);
    assert.deepEqual(dataOf(await admin(h, { url: `/organizations/${org.id}` }), 200), org);
  });

  test('answers not_found for an unknown organization', async () => {
    const res = await admin(h, {
      method: 'PATCH',
      url: '/organizations/org_doesnotexist0000000000000',
      body: { name: 'x' },
    });
    errorOf(res, 404, 'not_found');
  });
});
