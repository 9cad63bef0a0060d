// Developer settings in the organizer app: API clients listed, created (the secret shown once and
// working at the real token endpoint), the display name buyers see set and edited, scopes edited,
// domains added and removed one at a time with validation, the publishable key regenerated, the
// secret rotated, the client revoked after a confirmation; a viewer sees it all read-only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientCreateIn, DisplayName } from '../../src/admin/clients/client-admin.schema.ts';
import { limitOf } from '../../src/app/form-body.ts';
import { listAuditEvents } from '../../src/audit/audit-log.ts';
import { insertApiClient, findApiClient, listApiClients } from '../../src/auth/clients.ts';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import { APP_SCRIPT, APP_STYLES } from '../../src/app/app-assets.ts';
import { makePartner, startHarness, type Harness, type TestPartner } from '../helpers/harness.ts';
import { Agent, locationOf, makeMember, nextIp, signIn, textOf } from './app-helpers.ts';

let h: Harness;
let partner: TestPartner;
let developer: Agent;
let viewer: Agent;

before(async () => {
  h = await startHarness();
  partner = await makePartner(h);
  developer = await signIn(h, await makeMember(h, partner.organizationId, 'developer'));
  viewer = await signIn(h, await makeMember(h, partner.organizationId, 'viewer'));
});
after(() => h.close());

async function tokenStatus(clientId: string, clientSecret: string): Promise<number> {
  const res = await h.service.api.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }).toString(),
    remoteAddress: nextIp(),
  });
  return res.statusCode;
}

function shown(body: string, id: string): string {
  const match = new RegExp(`<code class="secret" id="${id}">([^<]+)</code>`).exec(body);
  assert.ok(match, `${id} is shown`);
  return match[1]!;
}

/** The opening tag of the element with that id. */
function tagOf(body: string, id: string): string {
  const match = new RegExp(`<[a-z]+[^>]*\\bid="${id}"[^>]*>`).exec(body);
  assert.ok(match, `#${id} is on the page`);
  return match[0];
}

function client(id = partner.clientId) {
  return findApiClient(h.service.ctx.database.db, id);
}

describe('developer settings', () => {
  test('creates an API client: the secret is shown once, with copy buttons, and gets a token', async () => {
    const list = await developer.get('/developers');
    assert.equal(list.statusCode, 200);
    assert.match(
      list.body,
      /<a class="button primary" href="\/developers\/clients\/new">Create API client<\/a>/,
    );
    assert.match(list.body, /Test client/);

    const form = await developer.get('/developers/clients/new');
    assert.match(form.body, /<label for="f-name">Name<\/label>/);
    // least privilege: the scopes that write beyond a checkout are ticked on purpose
    assert.deepEqual(
      [...form.body.matchAll(/type="checkbox"[^>]*name="scopes"\s+value="([^"]+)"\s+checked/g)].map(
        (m) => m[1],
      ),
      ['events:read', 'checkout_sessions:write', 'checkout_sessions:read', 'orders:read'],
    );
    assert.match(form.body, /value="orders:write"\s*\/>/);

    const res = await developer.post('/developers/clients', {
      name: 'Shop website',
      scopes: [...ALL_SCOPES],
    });
    assert.equal(res.statusCode, 201, res.body.slice(0, 500));
    const clientId = shown(res.body, 'client-id');
    const secret = shown(res.body, 'client-secret');
    assert.match(clientId, /^cli_/);
    assert.match(secret, /^sk_/);
    assert.match(res.body, /data-copy="client-id"/);
    assert.match(res.body, /data-copy="client-secret"/);
    assert.match(textOf(res.body), /it will not be shown again/);
    assert.match(res.body, /<script src="\/assets\/app\.[\w-]+\.js" defer><\/script>/);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(await tokenStatus(clientId, secret), 200);

    const row = await client(clientId);
    assert.equal(row?.organizationId, partner.organizationId);
    assert.deepEqual([...row!.scopes].sort(), [...ALL_SCOPES].sort());
    const detail = await developer.get(`/developers/clients/${clientId}`);
    assert.equal(detail.statusCode, 200);
    assert.ok(!detail.body.includes(secret), 'never shown again');
    assert.ok(!(await developer.get('/developers')).body.includes(secret));
  });

  test('a missing name, no scope or an unknown scope comes back with messages and creates nothing', async () => {
    const count = (await listApiClients(h.service.ctx.database.db, partner.organizationId)).length;
    await developer.get('/developers/clients/new');
    const res = await developer.post('/developers/clients', { name: '  ', junk: 'x' });
    assert.equal(res.statusCode, 422);
    assert.match(res.body, /Enter a name for the client\./);
    assert.match(res.body, /Choose at least one scope\./);
    assert.match(res.body, /<a href="#f-name">/);
    const unknown = await developer.post('/developers/clients', {
      name: 'Shop',
      scopes: ['events:read', 'admin:all'],
    });
    assert.equal(unknown.statusCode, 422);
    assert.match(unknown.body, /Choose scopes from the list\./);
    const long = await developer.post('/developers/clients', {
      name: 'n'.repeat(201),
      scopes: ['events:read'],
    });
    assert.equal(long.statusCode, 422);
    assert.match(long.body, /Name must be at most 200 characters\./);
    assert.equal((await listApiClients(h.service.ctx.database.db, partner.organizationId)).length, count);
  });

  test('the 26th live client is refused on the form with a readable message and creates nothing; revoking one frees a place', async () => {
    const own = await makePartner(h); // its first client is live: 1 of 25
    const db = h.service.ctx.database.db;
    for (let i = 1; i < 25; i++) {
      await insertApiClient(db, {
        organizationId: own.organizationId,
        name: `Seeded ${i}`,
        scopes: ['events:read'],
        allowedDomains: [],
        returnUrlDomains: [],
      });
    }
    const member = await signIn(h, await makeMember(h, own.organizationId, 'developer'));
    await member.get('/developers/clients/new');
    const refused = await member.post('/developers/clients', {
      name: 'One too many',
      display_name: 'Shop',
      scopes: ['events:read', 'orders:read'],
    });
    assert.equal(refused.statusCode, 409);
    assert.match(
      textOf(refused.body),
      /There is a problem This organization has 25 active API clients and may have at most 25; revoke one it no longer uses, then create the new one\./,
    );
    // the form comes back as it was filled
    assert.match(refused.body, /<input[^>]*name="name"[^>]*value="One too many"/);
    assert.match(refused.body, /<input[^>]*name="display_name"[^>]*value="Shop"/);
    assert.equal((await listApiClients(db, own.organizationId)).length, 25, 'nothing created');

    await member.get(`/developers/clients/${own.clientId}/revoke`);
    assert.equal((await member.post(`/developers/clients/${own.clientId}/revoke`)).statusCode, 303);
    await member.get('/developers/clients/new');
    const created = await member.post('/developers/clients', {
      name: 'In its place',
      scopes: ['events:read'],
    });
    assert.equal(created.statusCode, 201, created.body.slice(0, 500));
  });

  test('a display name for buyers is set at creation, edited and removed on the client page, each change audited', async () => {
    const form = await developer.get('/developers/clients/new');
    assert.match(form.body, /<label for="f-display_name">Display name \(optional\)<\/label>/);
    assert.match(form.body, /Shown to buyers in the checkout, e\.g\. on &#39;Back to …&#39; buttons/);
    const res = await developer.post('/developers/clients', {
      name: 'Club shop',
      display_name: '  Kampala Runners Club ',
      scopes: ['events:read'],
    });
    assert.equal(res.statusCode, 201, res.body.slice(0, 500));
    const clientId = shown(res.body, 'client-id');
    assert.equal((await client(clientId))!.displayName, 'Kampala Runners Club');

    const page = await developer.get(`/developers/clients/${clientId}`);
    assert.match(page.body, /<h2>Display name<\/h2>/);
    assert.match(tagOf(page.body, 'f-display_name'), /value="Kampala Runners Club"/);
    const url = `/developers/clients/${clientId}/display-name`;
    const saved = await developer.post(url, { display_name: 'KRC shop' });
    assert.equal(saved.statusCode, 303);
    assert.equal(locationOf(saved), `/developers/clients/${clientId}?done=display_name`);
    assert.match((await developer.get(locationOf(saved))).body, /The display name was saved/);
    assert.equal((await client(clientId))!.displayName, 'KRC shop');
    // the same name again is no change
    assert.equal((await developer.post(url, { display_name: 'KRC shop ' })).statusCode, 303);
    const cleared = await developer.post(url, { display_name: '   ' });
    assert.equal(cleared.statusCode, 303);
    assert.equal((await client(clientId))!.displayName, null);

    const { rows } = await listAuditEvents(h.service.ctx.database.db, partner.organizationId, { limit: 50 });
    const entries = rows
      .filter((row) => row.targetId === clientId)
      .reverse()
      .map((row) => [row.action, row.details]);
    assert.deepEqual(entries, [
      [
        'client.created',
        {
          name: 'Club shop',
          display_name: 'Kampala Runners Club',
          scopes: ['events:read'],
          allowed_domains: [],
          return_url_domains: [],
        },
      ],
      ['client.display_name_changed', { display_name: 'KRC shop' }],
      ['client.display_name_changed', { display_name: null }],
    ]);
  });

  test('a display name too long or with control characters comes back with its message and changes nothing', async () => {
    const count = (await listApiClients(h.service.ctx.database.db, partner.organizationId)).length;
    await developer.get('/developers/clients/new');
    const long = await developer.post('/developers/clients', {
      name: 'Shop',
      display_name: 'd'.repeat(61),
      scopes: ['events:read'],
    });
    assert.equal(long.statusCode, 422);
    assert.match(long.body, /<a href="#f-display_name">Display name must be at most 60 characters\.<\/a>/);
    assert.match(tagOf(long.body, 'f-display_name'), /aria-invalid="true"/);
    assert.match(
      tagOf(long.body, 'f-display_name'),
      new RegExp(`value="${'d'.repeat(61)}"`),
      'kept as typed',
    );
    const control = await developer.post('/developers/clients', {
      name: 'Shop',
      display_name: 'Club\u0007shop',
      scopes: ['events:read'],
    });
    assert.equal(control.statusCode, 422);
    assert.match(control.body, /Display name must not contain control characters/);
    assert.equal((await listApiClients(h.service.ctx.database.db, partner.organizationId)).length, count);

    const before = (await client())!;
    const url = `/developers/clients/${partner.clientId}/display-name`;
    for (const display_name of ['x'.repeat(61), 'Club\nshop', 'Club\u202eshop']) {
      const refused = await developer.post(url, { display_name });
      assert.equal(refused.statusCode, 422, JSON.stringify(display_name));
      assert.match(
        refused.body,
        /Display name must (be at most 60 characters|not contain control characters)/,
      );
    }
    const after = (await client())!;
    assert.equal(after.displayName, before.displayName);
    assert.equal(after.updatedAt.getTime(), before.updatedAt.getTime());
    // Past what is read the value is cut, and the message is still the rule's.
    const read = limitOf(DisplayName, 'maxLength');
    const overlong = await developer.post(url, { display_name: 'y'.repeat(read + 1) });
    assert.equal(overlong.statusCode, 422);
    assert.match(overlong.body, /Display name must be at most 60 characters\./);
    assert.match(tagOf(overlong.body, 'f-display_name'), new RegExp(`value="${'y'.repeat(read)}"`));
    assert.equal((await client())!.updatedAt.getTime(), before.updatedAt.getTime());
    const refusedByViewer = await viewer.post(url, { display_name: 'Viewer shop' });
    assert.equal(refusedByViewer.statusCode, 403);
    assert.equal((await client())!.displayName, before.displayName);
  });

  test('edits scopes', async () => {
    await developer.get(`/developers/clients/${partner.clientId}`);
    const res = await developer.post(`/developers/clients/${partner.clientId}/scopes`, {
      scopes: ['events:read', 'orders:read'],
    });
    assert.equal(res.statusCode, 303);
    assert.equal(locationOf(res), `/developers/clients/${partner.clientId}?done=scopes`);
    assert.deepEqual([...(await client())!.scopes].sort(), ['events:read', 'orders:read']);
    const page = await developer.get(locationOf(res));
    assert.match(page.body, /The scopes were saved/);
    const none = await developer.post(`/developers/clients/${partner.clientId}/scopes`, {});
    assert.equal(none.statusCode, 422);
    assert.deepEqual([...(await client())!.scopes].sort(), ['events:read', 'orders:read']);
    const unknown = await developer.post(`/developers/clients/${partner.clientId}/scopes`, {
      scopes: ['events:read', 'everything'],
    });
    assert.equal(unknown.statusCode, 422);
    assert.match(unknown.body, /id="f-scopes-error">Choose scopes from the list\./);
    assert.deepEqual([...(await client())!.scopes].sort(), ['events:read', 'orders:read']);
    const twice = await developer.post(`/developers/clients/${partner.clientId}/scopes`, {
      scopes: ['orders:read', 'events:read', 'orders:read'],
    });
    assert.equal(twice.statusCode, 303);
    assert.deepEqual([...(await client())!.scopes].sort(), ['events:read', 'orders:read'], 'each once');
  });

  test('adds and removes allowed domains and return URL domains one at a time, each checked as an origin', async () => {
    const page = await developer.get(`/developers/clients/${partner.clientId}`);
    assert.match(page.body, /Web pages on these origins may use the publishable key/);
    assert.match(page.body, /buyers may be sent back only to these origins/);
    const url = `/developers/clients/${partner.clientId}/domains/add`;
    const added = await developer.post(url, {
      list: 'allowed_domains',
      allowed_domain: ' https://Shop2.Example.org ',
    });
    assert.equal(added.statusCode, 303);
    assert.deepEqual((await client())!.allowedDomains, [
      'https://shop.example.org',
      'https://shop2.example.org',
    ]);

    for (const bad of ['http://shop.example.org', 'https://shop.example.org/path', 'shop.example.org', '']) {
      const res = await developer.post(url, { list: 'allowed_domains', allowed_domain: bad });
      assert.equal(res.statusCode, 422, bad);
      assert.match(res.body, /id="f-allowed_domain-error"/);
      assert.match(res.body, /aria-describedby="f-allowed_domain-hint f-allowed_domain-error"/);
    }
    assert.equal((await client())!.allowedDomains.length, 2);

    const local = await developer.post(url, {
      list: 'return_url_domains',
      return_url_domain: 'http://localhost:5173',
    });
    assert.equal(local.statusCode, 303);
    // as copied from an address bar, with its trailing slash
    const slash = await developer.post(url, {
      list: 'return_url_domains',
      return_url_domain: 'https://Club.example.org/',
    });
    assert.equal(slash.statusCode, 303);
    assert.deepEqual((await client())!.returnUrlDomains, [
      'https://shop.example.org',
      'http://localhost:5173',
      'https://club.example.org',
    ]);

    const removed = await developer.post(`/developers/clients/${partner.clientId}/domains/remove`, {
      list: 'allowed_domains',
      origin: 'https://shop.example.org',
    });
    assert.equal(removed.statusCode, 303);
    assert.deepEqual((await client())!.allowedDomains, ['https://shop2.example.org']);
    // Two origins added at once (two tabs): both stay, neither edit overwrites the other.
    const both = await Promise.all(
      ['https://tab-a.example.org', 'https://tab-b.example.org'].map((origin) =>
        developer.post(url, { list: 'allowed_domains', allowed_domain: origin }),
      ),
    );
    assert.deepEqual(
      both.map((res) => res.statusCode),
      [303, 303],
    );
    assert.deepEqual([...(await client())!.allowedDomains].sort(), [
      'https://shop2.example.org',
      'https://tab-a.example.org',
      'https://tab-b.example.org',
    ]);
    const wrongList = await developer.post(url, {
      list: 'everything',
      allowed_domain: 'https://x.example.org',
    });
    assert.equal(wrongList.statusCode, 404);

    const max = limitOf(ClientCreateIn.properties.allowed_domains.items, 'maxLength');
    const long = `https://${'a'.repeat(max)}.example.org`;
    const before = (await client())!;
    const tooLong = await developer.post(url, { list: 'return_url_domains', return_url_domain: long });
    assert.equal(tooLong.statusCode, 422);
    assert.match(
      tooLong.body,
      new RegExp(`id="f-return_url_domain-error">Return URL domain must be at most ${max} characters\\.`),
    );
    const unfit = await developer.post(`/developers/clients/${partner.clientId}/domains/remove`, {
      list: 'allowed_domains',
      origin: long,
    });
    assert.equal(unfit.statusCode, 404);
    const after = (await client())!;
    assert.deepEqual(
      [after.allowedDomains, after.returnUrlDomains],
      [before.allowedDomains, before.returnUrlDomains],
    );
  });

  test('regenerates the publishable key and rotates the secret (the new one shown once)', async () => {
    const before = (await client())!;
    await developer.get(`/developers/clients/${partner.clientId}`);
    const key = await developer.post(`/developers/clients/${partner.clientId}/publishable-key`);
    assert.equal(key.statusCode, 303);
    const after = (await client())!;
    assert.notEqual(after.publishableKey, before.publishableKey);
    assert.match((await developer.get(locationOf(key))).body, new RegExp(after.publishableKey));

    const rotated = await developer.post(`/developers/clients/${partner.clientId}/rotate-secret`);
    assert.equal(rotated.statusCode, 200);
    const secret = shown(rotated.body, 'client-secret');
    assert.notEqual(await tokenStatus(partner.clientId, partner.clientSecret), 200);
    assert.equal(await tokenStatus(partner.clientId, secret), 200);
  });

  test('revokes a client only after a confirmation step; it is then read-only', async () => {
    const other = await makePartner(h);
    const made = await developer.post('/developers/clients', { name: 'To revoke', scopes: ['events:read'] });
    const clientId = shown(made.body, 'client-id');
    const secret = shown(made.body, 'client-secret');
    const detail = await developer.get(`/developers/clients/${clientId}`);
    assert.match(
      detail.body,
      new RegExp(`<a class="button danger" href="/developers/clients/${clientId}/revoke">Revoke</a>`),
    );
    const confirm = await developer.get(`/developers/clients/${clientId}/revoke`);
    assert.equal(confirm.statusCode, 200);
    assert.match(confirm.body, />Revoke API client<\/button>/);
    assert.equal((await client(clientId))!.revokedAt, null, 'the confirmation page changes nothing');
    const res = await developer.post(`/developers/clients/${clientId}/revoke`);
    assert.equal(res.statusCode, 303);
    assert.ok((await client(clientId))!.revokedAt);
    assert.notEqual(await tokenStatus(clientId, secret), 200);
    const page = await developer.get(locationOf(res));
    assert.match(textOf(page.body), /revoked/);
    assert.ok(!page.body.includes(`/developers/clients/${clientId}/rotate-secret`));
    const rotate = await developer.post(`/developers/clients/${clientId}/rotate-secret`);
    assert.equal(rotate.statusCode, 409);
    assert.equal((await client(other.clientId))!.revokedAt, null);
  });

  test('a viewer sees developer settings read-only, without write buttons', async () => {
    const list = await viewer.get('/developers');
    assert.equal(list.statusCode, 200);
    assert.ok(!list.body.includes('Create API client'));
    assert.match(list.body, /Your role can see these settings but not change them/);
    const detail = await viewer.get(`/developers/clients/${partner.clientId}`);
    assert.equal(detail.statusCode, 200);
    assert.ok(!/action="\/developers\//.test(detail.body), 'no write forms');
    assert.match(detail.body, /<h2>Display name<\/h2>/);
    assert.match(textOf(detail.body), /None: buyers see your site's host name\./);
    assert.ok(!detail.body.includes('/revoke'));
    const refused = await viewer.post(`/developers/clients/${partner.clientId}/rotate-secret`);
    assert.equal(refused.statusCode, 403);
  });

  test('a first load (page, stylesheet and script) is at most 50 KB gzip, assets cached by hash', async () => {
    const page = await h.service.app.inject({
      url: `/developers/clients/${partner.clientId}`,
      headers: { cookie: developer.cookieHeader(), 'accept-encoding': 'gzip' },
      remoteAddress: developer.ip,
    });
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['content-encoding'], 'gzip');
    const total = page.rawPayload.length + APP_STYLES.gzip.length + APP_SCRIPT.gzip.length;
    assert.ok(total <= 50 * 1024, `${total} bytes`);
    for (const asset of [APP_STYLES, APP_SCRIPT]) {
      const res = await h.service.app.inject({ url: asset.path, headers: { 'accept-encoding': 'gzip' } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.deepEqual(res.rawPayload, asset.gzip);
    }
    assert.equal((await h.service.app.inject({ url: '/assets/app.nothing.css' })).statusCode, 404);
  });
});
