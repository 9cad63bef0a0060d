import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { clientDisplayName, insertApiClient, markClientRevoked } from '../../src/auth/clients.ts';
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
let ipCounter = 0;

before(async () => {
  h = await startHarness();
});
after(() => h.close());

const CLIENT_FIELDS = [
  'allowed_domains',
  'client_id',
  'created_at',
  'display_name',
  'name',
  'organization_id',
  'publishable_key',
  'return_url_domains',
  'revoked_at',
  'scopes',
  'secret_rotated_at',
  'status',
  'updated_at',
];

function tokenRequest(clientId: string, clientSecret: string) {
  return h.service.api.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }).toString(),
    remoteAddress: `10.77.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`,
  });
}

function clientInput(organizationId: string, name: string) {
  return {
    organizationId,
    name,
    scopes: ['events:read' as const],
    allowedDomains: [],
    returnUrlDomains: [],
  };
}

/** Live clients made straight in the database, to bring an organization near its limit. */
async function seedClients(organizationId: string, count: number) {
  for (let i = 0; i < count; i++) {
    await insertApiClient(h.service.ctx.database.db, clientInput(organizationId, `Seeded ${i}`));
  }
}

function listEvents(headers: Record<string, string>) {
  return h.service.api.inject({ url: '/v1/events', headers });
}

function withKey(key: string, origin = 'https://shop.example.org') {
  return { 'x-service-publishable-key': key, origin };
}

describe('POST /admin/v1/organizations/{id}/clients', () => {
  test('creates a client and shows its secret once, with canonical origins', async () => {
    const org = await createOrg(h);
    const res = await admin(h, {
      method: 'POST',
      url: `/organizations/${org.id}/clients`,
      body: {
        name: 'Main shop',
        scopes: ['events:read', 'checkout_sessions:write', 'events:read'],
        allowed_domains: [
          'https://Shop.Example.org',
          'https://shop.example.org:443',
          'http://localhost:5173',
        ],
        return_url_domains: ['https://pay.example.org:8443'],
      },
    });
    assert.equal(res.json().message, 'Client created');
    const client = dataOf(res, 201);
    assert.deepEqual(Object.keys(client).sort(), [...CLIENT_FIELDS, 'client_secret'].sort());
    assert.deepEqual(Object.keys(client).slice(0, 2), ['client_id', 'client_secret']);
    assert.match(client.client_id, /^cli_[A-Za-z0-9]{24}$/);
    assert.match(client.client_secret, /^sk_[A-Za-z0-9]{40}$/);
    assert.match(client.publishable_key, /^pk_[A-Za-z0-9]{32}$/);
    assert.equal(client.organization_id, org.id);
    assert.equal(client.name, 'Main shop');
    assert.equal(client.display_name, null, 'none unless given');
    assert.deepEqual(client.scopes, ['events:read', 'checkout_sessions:write']);
    assert.deepEqual(client.allowed_domains, ['https://shop.example.org', 'http://localhost:5173']);
    assert.deepEqual(client.return_url_domains, ['https://pay.example.org:8443']);
    assert.equal(client.status, 'active');
    assert.equal(client.revoked_at, null);
    assert.equal(client.secret_rotated_at, null);
    // The secret works at the token endpoint.
    const token = await tokenRequest(client.client_id, client.client_secret);
    assert.equal(token.statusCode, 200, token.body);
    assert.equal(token.json().scope, 'events:read checkout_sessions:write');
  });

  test('never shows the secret or its hash again (read, list)', async () => {
    const org = await createOrg(h);
    const created = await createClientFor(h, org.id);
    const read = await admin(h, { url: `/clients/${created.client_id}` });
    assert.equal(read.json().message, 'Client retrieved');
    const client = dataOf(read, 200);
    assert.deepEqual(Object.keys(client).sort(), CLIENT_FIELDS);
    const { client_secret: _secret, ...rest } = created;
    assert.deepEqual(client, rest);
    const list = await admin(h, { url: `/organizations/${org.id}/clients` });
    assert.deepEqual(dataOf(list, 200).clients, [client]);
    for (const res of [read, list]) {
      assert.equal(res.body.includes(created.client_secret), false);
      assert.equal(/secret_hash|"client_secret"/.test(res.body), false);
    }
  });

  test('names each unknown scope and each bad origin by index, all at once', async () => {
    const org = await createOrg(h);
    const res = await admin(h, {
      method: 'POST',
      url: `/organizations/${org.id}/clients`,
      body: {
        name: 'Bad',
        scopes: ['events:read', 'events:write', 'orders:read', 'admin'],
        allowed_domains: [
          'https://shop.example.org',
          'https://shop.example.org/',
          'http://shop.example.org',
          'https://shop.example.org/checkout',
          'http://localhost',
          '*.example.org',
        ],
        return_url_domains: ['https://user:pw@shop.example.org', 'https://ok.example.org'],
      },
    });
    const body = errorOf(res, 400, 'validation_failed');
    assert.deepEqual(
      body.errors!.map((e) => e.field),
      [
        'scopes[1]',
        'scopes[3]',
        'allowed_domains[1]',
        'allowed_domains[2]',
        'allowed_domains[3]',
        'allowed_domains[4]',
        'allowed_domains[5]',
        'return_url_domains[0]',
      ],
    );
    assert.match(body.errors![0]!.message, /is not a known scope; use any of: events:read, /);
    assert.match(body.errors![2]!.message, /no path, no trailing slash/);
    assert.equal(dataOf(await admin(h, { url: `/organizations/${org.id}/clients` }), 200).clients.length, 0);
  });

  test('validates the body shape', async () => {
    const org = await createOrg(h);
    const res = await admin(h, {
      method: 'POST',
      url: `/organizations/${org.id}/clients`,
      body: { allowed_domains: 'https://shop.example.org', secret: 'mine' },
    });
    assert.deepEqual(fieldsOf(errorOf(res, 400, 'validation_failed')), [
      'allowed_domains',
      'name',
      'scopes',
      'secret',
    ]);
  });

  test('answers not_found for an unknown organization', async () => {
    const res = await admin(h, {
      method: 'POST',
      url: '/organizations/org_doesnotexist0000000000000/clients',
      body: { name: 'x', scopes: [] },
    });
    errorOf(res, 404, 'not_found');
    errorOf(
      await admin(h, { url: '/organizations/org_doesnotexist0000000000000/clients' }),
      404,
      'not_found',
    );
  });
});

describe('the limit of live clients per organization (API_CLIENTS_PER_ORGANIZATION)', () => {
  test('the 26th live client is 409 client_limit_reached and nothing is created; a revoked one frees a place', async () => {
    assert.equal(h.config.apiClientsPerOrganization, 25);
    const org = await createOrg(h);
    await seedClients(org.id, 24);
    const revoked = await insertApiClient(h.service.ctx.database.db, clientInput(org.id, 'Old'));
    await markClientRevoked(h.service.ctx.database.db, revoked.client.id, h.clock.now());
    const last = await createClientFor(h, org.id, { name: 'Twenty-fifth' });
    assert.equal(last.status, 'active');

    const refused = await admin(h, {
      method: 'POST',
      url: `/organizations/${org.id}/clients`,
      body: { name: 'Twenty-sixth', scopes: ['events:read'] },
    });
    const body = errorOf(refused, 409, 'client_limit_reached');
    assert.match(body.message, /has 25 active API clients and may have at most 25; revoke one/);
    const listed = dataOf(await admin(h, { url: `/organizations/${org.id}/clients` }), 200);
    assert.equal(listed.clients.length, 26, 'nothing created (25 live, 1 revoked)');
    assert.ok(!listed.clients.some((c: { name: string }) => c.name === 'Twenty-sixth'));

    dataOf(await admin(h, { method: 'POST', url: `/clients/${last.client_id}/revoke` }), 200);
    const again = await createClientFor(h, org.id, { name: 'In its place' });
    assert.equal(again.status, 'active');
    // another organization has places of its own
    await createClientFor(h, (await createOrg(h)).id);
  });

  test('creations at once cannot pass the limit together', async () => {
    const org = await createOrg(h);
    await seedClients(org.id, 22);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        admin(h, {
          method: 'POST',
          url: `/organizations/${org.id}/clients`,
          body: { name: `Racer ${i}`, scopes: ['events:read'] },
        }),
      ),
    );
    const statuses = answers.map((a) => a.statusCode).sort();
    assert.deepEqual(statuses, [201, 201, 201, 409, 409, 409]);
    const listed = dataOf(await admin(h, { url: `/organizations/${org.id}/clients` }), 200);
    assert.equal(listed.clients.length, 25);
  });
});

describe('GET /admin/v1/organizations/{id}/clients', () => {
  test("lists only that organization's clients, oldest first", async () => {
    const org = await createOrg(h);
    const other = await createOrg(h);
    const a = await createClientFor(h, org.id, { name: 'A' });
    const b = await createClientFor(h, org.id, { name: 'B' });
    await createClientFor(h, other.id);
    const clients = dataOf(await admin(h, { url: `/organizations/${org.id}/clients` }), 200).clients;
    assert.deepEqual(
      clients.map((c: { client_id: string }) => c.client_id),
      [a.client_id, b.client_id],
    );
  });
});

describe('display_name', () => {
  test('is set at creation (trimmed), read back, changed, and removed with null', async () => {
    const org = await createOrg(h);
    const created = await createClientFor(h, org.id, { display_name: '  Kampala Runners Club  ' });
    assert.equal(created.display_name, 'Kampala Runners Club');
    const url = `/clients/${created.client_id}`;
    assert.equal(dataOf(await admin(h, { url }), 200).display_name, 'Kampala Runners Club');
    const listed = dataOf(await admin(h, { url: `/organizations/${org.id}/clients` }), 200);
    assert.equal(listed.clients[0].display_name, 'Kampala Runners Club');
    // 60 characters (not UTF-16 units: an emoji is one) is the most.
    const longest = `Ekyalo ${'é'.repeat(52)}🏃`;
    assert.equal([...longest].length, 60);
    const changed = await admin(h, { method: 'PATCH', url, body: { display_name: longest } });
    assert.equal(dataOf(changed, 200).display_name, longest);
    const kept = await admin(h, { method: 'PATCH', url, body: { name: 'Renamed' } });
    assert.equal(dataOf(kept, 200).display_name, longest, 'left out: kept');
    const removed = await admin(h, { method: 'PATCH', url, body: { display_name: null } });
    assert.equal(dataOf(removed, 200).display_name, null);
  });

  test('refuses a blank, too long or control-character name with validation_failed, changing nothing', async () => {
    const org = await createOrg(h);
    const client = await createClientFor(h, org.id, { display_name: 'Club' });
    const { client_secret: _secret, ...stored } = client;
    const bad: [unknown, RegExp][] = [
      ['   ', /must not be blank/],
      ['x'.repeat(61), /at most 60 characters/],
      [` ${'x'.repeat(61)} `, /at most 60 characters/],
      ['Club\nShop', /control characters/],
      ['Club\tShop', /control characters/],
      ['Club\u0085Shop', /control characters/],
      ['Club\u202eShop', /control characters/],
      ['Club\u2028Shop', /control characters/],
      [42, /string/],
    ];
    for (const [value, message] of bad) {
      const res = await admin(h, {
        method: 'PATCH',
        url: `/clients/${client.client_id}`,
        body: { display_name: value },
      });
      const error = errorOf(res, 400, 'validation_failed');
      // (a number breaks both arms of string-or-null: one entry each)
      assert.deepEqual([...new Set(fieldsOf(error))], ['display_name'], JSON.stringify(value));
      assert.match(error.errors![0]!.message, message, JSON.stringify(value));
      const create = await admin(h, {
        method: 'POST',
        url: `/organizations/${org.id}/clients`,
        body: { name: 'New', scopes: ['events:read'], display_name: value },
      });
      assert.deepEqual([...new Set(fieldsOf(errorOf(create, 400, 'validation_failed')))], ['display_name']);
    }
    // Reported with the other bad fields, in one answer.
    const together = await admin(h, {
      method: 'PATCH',
      url: `/clients/${client.client_id}`,
      body: { display_name: '', scopes: ['everything'] },
    });
    assert.deepEqual(fieldsOf(errorOf(together, 400, 'validation_failed')), ['display_name', 'scopes[0]']);
    assert.deepEqual(dataOf(await admin(h, { url: `/clients/${client.client_id}` }), 200), stored);
    const listed = dataOf(await admin(h, { url: `/organizations/${org.id}/clients` }), 200);
    assert.equal(listed.clients.length, 1, 'no client was created');
  });

  test('clientDisplayName gives the checkout the name, or null', async () => {
    const org = await createOrg(h);
    const named = await createClientFor(h, org.id, { display_name: 'Club shop' });
    const plain = await createClientFor(h, org.id);
    const db = h.service.ctx.database.db;
    assert.equal(await clientDisplayName(db, named.client_id), 'Club shop');
    assert.equal(await clientDisplayName(db, plain.client_id), null);
    assert.equal(await clientDisplayName(db, 'cli_missing'), null);
  });
});

describe('PATCH /admin/v1/clients/{client_id}', () => {
  test('updates name, scopes and allowlists', async () => {
    const org = await createOrg(h);
    const client = await createClientFor(h, org.id);
    h.clock.advance(1000);
    const res = await admin(h, {
      method: 'PATCH',
      url: `/clients/${client.client_id}`,
      body: {
        name: 'Renamed',
        scopes: ['orders:read'],
        allowed_domains: ['https://WWW.example.org'],
        return_url_domains: [],
      },
    });
    assert.equal(res.json().message, 'Client updated');
    const updated = dataOf(res, 200);
    assert.equal(updated.name, 'Renamed');
    assert.deepEqual(updated.scopes, ['orders:read']);
    assert.deepEqual(updated.allowed_domains, ['https://www.example.org']);
    assert.deepEqual(updated.return_url_domains, []);
    assert.equal(updated.publishable_key, client.publishable_key);
    assert.ok(Date.parse(updated.updated_at) > Date.parse(client.updated_at));
    // Fields left out are kept.
    const again = dataOf(
      await admin(h, { method: 'PATCH', url: `/clients/${client.client_id}`, body: { name: 'Again' } }),
      200,
    );
    assert.deepEqual(again.scopes, ['orders:read']);
    assert.deepEqual(again.allowed_domains, ['https://www.example.org']);
  });

  test('a removed scope stops working on the next request: 403 insufficient_scope', async () => {
    const org = await createOrg(h);
    const client = await createClientFor(h, org.id, { scopes: ['events:read', 'orders:read'] });
    const token = await getToken(h, partnerOf(client));
    assert.equal((await listEvents(bearer(token))).statusCode, 200);
    await admin(h, {
      method: 'PATCH',
      url: `/clients/${client.client_id}`,
      body: { scopes: ['orders:read'] },
    });
    const res = await listEvents(bearer(token));
    errorOf(res, 403, 'insufficient_scope');
    assert.match(String(res.headers['www-authenticate']), /insufficient_scope/);
    // The publishable key loses it too.
    errorOf(await listEvents(withKey(client.publishable_key)), 403, 'insufficient_scope');
  });

  test('allowlist changes act on the next request', async () => {
    const org = await createOrg(h);
    const client = await createClientFor(h, org.id);
    assert.equal((await listEvents(withKey(client.publishable_key))).statusCode, 200);
    errorOf(
      await listEvents(withKey(client.publishable_key, 'http://localhost:5173')),
      403,
      'origin_not_allowed',
    );
    await admin(h, {
      method: 'PATCH',
      url: `/clients/${client.client_id}`,
      body: { allowed_domains: ['http://localhost:5173'] },
    });
    assert.equal(
      (await listEvents(withKey(client.publishable_key, 'http://localhost:5173'))).statusCode,
      200,
    );
    errorOf(await listEvents(withKey(client.publishable_key)), 403, 'origin_not_allowed');
  });

  test('validates scopes and origins and changes nothing', async () => {
    const org = await createOrg(h);
    const client = await createClientFor(h, org.id);
    const { client_secret: _secret, ...stored } = client;
    const res = await admin(h, {
      method: 'PATCH',
      url: `/clients/${client.client_id}`,
      body: { scopes: ['events:read', 'everything'], return_url_domains: ['ftp://files.example.org'] },
    });
    assert.deepEqual(fieldsOf(errorOf(res, 400, 'validation_failed')), [
      'return_url_domains[0]',
      'scopes[1]',
    ]);
    const schema = await admin(h, {
      method: 'PATCH',
      url: `/clients/${client.client_id}`,
      body: { name: '', publishable_key: 'pk_mine', scopes: 'events:read' },
    });
    assert.deepEqual(fieldsOf(errorOf(schema, 400, 'validation_failed')), [
      'name',
      'publishable_key',
      'scopes',
    ]);
    assert.deepEqual(dataOf(await admin(h, { url: `/clients/${client.client_id}` }), 200), stored);
  });
});

describe('POST /admin/v1/clients/{client_id}/revoke', () => {
  test('cuts off the client and its tokens on the next request', async () => {
    const org = await createOrg(h);
    await createEventFor(h, org.id);
    const client = await createClientFor(h, org.id);
    const token = await getToken(h, partnerOf(client));
    assert.equal((await listEvents(bearer(token))).statusCode, 200);
    assert.equal((await listEvents(withKey(client.publishable_key))).statusCode, 200);

    h.clock.advance(1000);
    const res = await admin(h, { method: 'POST', url: `/clients/${client.client_id}/revoke` });
    assert.equal(res.json().message, 'Client revoked');
    const revoked = dataOf(res, 200);
    assert.equal(revoked.status, 'revoked');
    assert.match(revoked.revoked_at, /^\d{4}-\d\d-\d\dT/);

    const afterToken = await listEvents(bearer(token));
    errorOf(afterToken, 401, 'invalid_token');
    assert.match(String(afterToken.headers['www-authenticate']), /^Bearer realm="service-partner"/);
    errorOf(await listEvents(withKey(client.publishable_key)), 401, 'invalid_key');
    const mint = await tokenRequest(client.client_id, client.client_secret);
    assert.equal(mint.statusCode, 401);
    assert.equal(mint.json().error, 'invalid_client');
  });

  test('is idempotent: revoking again keeps the first revoked_at', async () => {
    const org = await createOrg(h);
    const client = await createClientFor(h, org.id);
    const first = dataOf(await admin(h, { method: 'POST', url: `/clients/${client.client_id}/revoke` }), 200);
    h.clock.advance(5000);
    const second = dataOf(
      await admin(h, { method: 'POST', url: `/clients/${client.client_id}/revoke` }),
      200,
    );
    assert.equal(second.status, 'revoked');
    assert.equal(second.revoked_at, first.revoked_at);
  });
});

describe('POST /admin/v1/clients/{client_id}/rotate-secret', () => {
  test('issues a new secret; the old one stops minting, tokens already issued keep working', async () => {
    const org = await createOrg(h);
    const client = await createClientFor(h, org.id);
    const before = await getToken(h, partnerOf(client));
    const res = await admin(h, { method: 'POST', url: `/clients/${client.client_id}/rotate-secret` });
    assert.equal(res.json().message, 'Client secret rotated');
    const rotated = dataOf(res, 200);
    assert.deepEqual(Object.keys(rotated).sort(), ['client_id', 'client_secret']);
    assert.equal(rotated.client_id, client.client_id);
    assert.match(rotated.client_secret, /^sk_[A-Za-z0-9]{40}$/);
    assert.notEqual(rotated.client_secret, client.client_secret);

    const old = await tokenRequest(client.client_id, client.client_secret);
    assert.equal(old.statusCode, 401);
    assert.equal(old.json().error, 'invalid_client');
    const fresh = await tokenRequest(client.client_id, rotated.client_secret);
    assert.equal(fresh.statusCode, 200, fresh.body);
    assert.equal((await listEvents(bearer(before))).statusCode, 200);
    assert.equal((await listEvents(bearer(fresh.json().access_token))).statusCode, 200);
    const read = dataOf(await admin(h, { url: `/clients/${client.client_id}` }), 200);
    assert.match(read.secret_rotated_at, /^\d{4}-/);
    assert.equal(read.publishable_key, client.publishable_key);
  });
});

describe('POST /admin/v1/clients/{client_id}/regenerate-publishable-key', () => {
  test('the old key is invalid_key at once and the new one works', async () => {
    const org = await createOrg(h);
    const client = await createClientFor(h, org.id);
    assert.equal((await listEvents(withKey(client.publishable_key))).statusCode, 200);
    const res = await admin(h, {
      method: 'POST',
      url: `/clients/${client.client_id}/regenerate-publishable-key`,
    });
    assert.equal(res.json().message, 'Publishable key regenerated');
    const regenerated = dataOf(res, 200);
    assert.deepEqual(Object.keys(regenerated).sort(), ['client_id', 'publishable_key']);
    assert.match(regenerated.publishable_key, /^pk_[A-Za-z0-9]{32}$/);
    assert.notEqual(regenerated.publishable_key, client.publishable_key);
    const old = await listEvents(withKey(client.publishable_key));
    errorOf(old, 401, 'invalid_key');
    assert.ok(old.headers['www-authenticate']);
    assert.equal((await listEvents(withKey(regenerated.publishable_key))).statusCode, 200);
    const read = dataOf(await admin(h, { url: `/clients/${client.client_id}` }), 200);
    assert.equal(read.publishable_key, regenerated.publishable_key);
    // The secret is untouched.
    assert.equal((await tokenRequest(client.client_id, client.client_secret)).statusCode, 200);
  });
});

describe('client actions', () => {
  test('rotating or regenerating a revoked client is 409 conflict', async () => {
    const org = await createOrg(h);
    const client = await createClientFor(h, org.id);
    await admin(h, { method: 'POST', url: `/clients/${client.client_id}/revoke` });
    for (const action of ['rotate-secret', 'regenerate-publishable-key']) {
      const body = errorOf(
        await admin(h, { method: 'POST', url: `/clients/${client.client_id}/${action}` }),
        409,
        'conflict',
      );
      assert.match(body.message, /revoked/);
    }
    const read = dataOf(await admin(h, { url: `/clients/${client.client_id}` }), 200);
    assert.equal(read.publishable_key, client.publishable_key);
    assert.equal(read.secret_rotated_at, null);
  });

  test('take no body: absent, empty with a JSON content type, or {}; anything else is refused', async () => {
    const org = await createOrg(h);
    const client = await createClientFor(h, org.id);
    const url = `/clients/${client.client_id}/regenerate-publishable-key`;
    const keys = new Set<string>([client.publishable_key]);
    for (const variant of [
      {},
      { headers: { 'content-type': 'application/json' }, payload: '' },
      { headers: { 'content-type': 'application/json' }, payload: '  ' },
      { body: {} },
    ]) {
      const res = await admin(h, { method: 'POST', url, ...variant });
      keys.add(dataOf(res, 200).publishable_key);
    }
    assert.equal(keys.size, 5, 'each call issued a new key');
    const extra = await admin(h, { method: 'POST', url, body: { publishable_key: 'pk_mine' } });
    assert.deepEqual(errorOf(extra, 400, 'validation_failed').errors, [
      { field: 'publishable_key', message: 'is not a recognised field' },
    ]);
    const broken = await admin(h, {
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: '{',
    });
    errorOf(broken, 400, 'validation_failed');
    const array = await admin(h, { method: 'POST', url, body: [] });
    errorOf(array, 400, 'validation_failed');
  });

  test('unknown client ids are not_found on every client route', async () => {
    const id = 'cli_doesnotexist0000000000000';
    const requests = [
      { url: `/clients/${id}` },
      { method: 'PATCH' as const, url: `/clients/${id}`, body: { name: 'x' } },
      { method: 'POST' as const, url: `/clients/${id}/revoke` },
      { method: 'POST' as const, url: `/clients/${id}/rotate-secret` },
      { method: 'POST' as const, url: `/clients/${id}/regenerate-publishable-key` },
      { url: '/clients/org_3kTzQ8bN1cV7xY2wR5mP0aLd' },
    ];
    for (const request of requests) {
      const body = errorOf(await admin(h, request), 404, 'not_found');
      assert.equal(body.message, 'No such client.');
    }
  });
});
