// The integration checker: a site origin checked against the chosen live API client's allowed
// domains and return URL domains (canonicalised like the client page does, bad input 422 next to
// the field), "Add it" posting to the client's domain route, the exact checkout.js tag (which the
// SITE host really serves) and CSP, and a signed test webhook per enabled endpoint sent at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientCreateIn } from '../../src/admin/clients/client-admin.schema.ts';
import { limitOf } from '../../src/app/form-body.ts';
import { insertApiClient, findApiClient, markClientRevoked } from '../../src/auth/clients.ts';
import { makePartner, type Harness, type TestPartner } from '../helpers/harness.ts';
import {
  createEndpoint,
  startReceiver,
  startWebhookHarness,
  verifyDelivery,
  type Receiver,
} from '../webhooks/webhook-helpers.ts';
import { admin } from '../admin/admin-helpers.ts';
import { Agent, locationOf, makeMember, signIn, textOf } from './app-helpers.ts';

let h: Harness;
let partner: TestPartner;
let developer: Agent;
let viewer: Agent;
const receivers: Receiver[] = [];

before(async () => {
  h = await startWebhookHarness();
  partner = await makePartner(h, {
    allowedDomains: ['https://shop.example.org'],
    returnUrlDomains: ['https://pay.example.org'],
  });
  developer = await signIn(h, await makeMember(h, partner.organizationId, 'developer'));
  viewer = await signIn(h, await makeMember(h, partner.organizationId, 'viewer'));
});
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await h.close();
});

function check(agent: Agent, origin: string, client?: string) {
  const query = new URLSearchParams({ origin, ...(client && { client }) });
  return agent.get(`/developers/integration?${query.toString()}`);
}

describe('integration checker', () => {
  test('with no origin: the form, the checkout.js tag the SITE host serves and the CSP directives', async () => {
    const res = await viewer.get('/developers/integration');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<label for="f-origin">Site origin<\/label>/);
    assert.doesNotMatch(res.body, /<select/, 'one client: no choice to make');
    const site = h.config.siteUrl.origin;
    const api = h.config.apiUrl.origin;
    assert.ok(res.body.includes(`&lt;script src=&quot;${site}/v1/checkout.js&quot;&gt;&lt;/script&gt;`));
    const text = textOf(res.body);
    assert.ok(text.includes(`script-src 'self' ${site}; frame-src ${site}; connect-src 'self' ${api}`), text);
    const served = await h.service.site.inject({ url: '/v1/checkout.js' });
    assert.equal(served.statusCode, 200, 'the tag names what the SITE host serves');
    assert.ok(served.body.includes(site) && served.body.includes(api), 'and the origins it talks to');
  });

  test('an origin in both lists; one in neither, with what to change and Add buttons for writers', async () => {
    const both = await check(developer, 'https://SHOP.example.org');
    assert.equal(both.statusCode, 200);
    let text = textOf(both.body);
    assert.match(text, /Result for https:\/\/shop\.example\.org/);
    assert.match(text, /https:\/\/shop\.example\.org is in the allowed domains of Test client/);
    assert.match(text, /https:\/\/shop\.example\.org is not in the return URL domains of Test client/);

    const neither = await check(developer, 'https://new.example.org');
    text = textOf(neither.body);
    assert.match(
      text,
      /is not in the allowed domains of Test client: checkout\.js cannot start a checkout here/,
    );
    assert.match(text, /is not in the return URL domains/);
    assert.equal((text.match(/What to change: add it on Test client's settings/g) ?? []).length, 2);
    assert.ok(neither.body.includes(`href="/developers/clients/${partner.clientId}"`));
    assert.match(neither.body, /action="\/developers\/clients\/cli_\w+\/domains\/add"/);

    const read = textOf((await check(viewer, 'https://new.example.org')).body);
    assert.match(read, /is not in the allowed domains/);
    assert.doesNotMatch(read, /Add https:\/\/new\.example\.org to/, 'a viewer gets no Add button');
  });

  test('Add it posts to the client route; the checker then says the origin is in the list', async () => {
    const origin = 'https://added.example.org';
    await check(developer, origin);
    const res = await developer.post(`/developers/clients/${partner.clientId}/domains/add`, {
      list: 'allowed_domains',
      allowed_domain: origin,
    });
    assert.equal(res.statusCode, 303);
    assert.ok(
      (await findApiClient(h.service.ctx.database.db, partner.clientId))?.allowedDomains.includes(origin),
    );
    assert.match(textOf((await check(developer, origin)).body), /is in the allowed domains of Test client/);
  });

  test('a bad origin is 422 with the error next to the field', async () => {
    for (const origin of ['https://shop.example.org/path', 'http://not-local.example.org', 'nonsense']) {
      const res = await check(developer, origin);
      assert.equal(res.statusCode, 422, origin);
      assert.match(res.body, /<p class="error" id="f-origin-error">The site origin must be an origin/);
      assert.match(res.body, /<title>Error: Integration checker/);
      assert.doesNotMatch(res.body, /Result for/);
    }
  });

  test('several live clients: a select, the chosen one checked; revoked clients are not offered', async () => {
    const other = await makePartner(h, { allowedDomains: ['https://a.example.org'] });
    const member = await signIn(h, await makeMember(h, other.organizationId, 'owner'));
    const db = h.service.ctx.database.db;
    const second = await insertApiClient(db, {
      organizationId: other.organizationId,
      name: 'Second site',
      scopes: ['events:read'],
      allowedDomains: ['https://b.example.org'],
      returnUrlDomains: [],
    });
    const revoked = await insertApiClient(db, {
      organizationId: other.organizationId,
      name: 'Old site',
      scopes: ['events:read'],
      allowedDomains: [],
      returnUrlDomains: [],
    });
    await markClientRevoked(db, revoked.client.id, h.clock.now());
    const page = await check(member, 'https://b.example.org', second.client.id);
    assert.match(page.body, /<label for="f-client">API client<\/label>/);
    assert.match(page.body, new RegExp(`<option value="${second.client.id}"\\s+selected`));
    assert.doesNotMatch(page.body, /Old site/);
    assert.match(textOf(page.body), /is in the allowed domains of Second site/);
    // A client of another organization named in the query is ignored: the first live one is used.
    assert.match(
      textOf((await check(member, 'https://b.example.org', partner.clientId)).body),
      /of Test client: /,
    );
  });

  test('Send a signed test webhook: sent now, verified, and the answer shown with status, latency and excerpt', async () => {
    const r = await startReceiver(() => ({ status: 202, body: 'accepted by shop' }));
    receivers.push(r);
    const off = await startReceiver();
    receivers.push(off);
    const endpoint = await createEndpoint(h, partner.organizationId, r.url);
    const disabled = await createEndpoint(h, partner.organizationId, off.url);
    await admin(h, { method: 'POST', url: `/webhook-endpoints/${disabled.id}/disable` });

    const page = await check(developer, 'https://shop.example.org');
    const forms = [
      ...page.body.matchAll(/action="\/developers\/integration\/webhooks\/(whe_\w+)\/test"/g),
    ].map((m) => m[1]);
    assert.deepEqual(forms, [endpoint.id], 'a button for the enabled endpoint only');
    const res = await developer.post(`/developers/integration/webhooks/${endpoint.id}/test`, {
      origin: 'https://shop.example.org',
      client: partner.clientId,
    });
    assert.equal(res.statusCode, 303);
    assert.match(
      locationOf(res),
      /^\/developers\/integration\?origin=https%3A%2F%2Fshop\.example\.org&client=cli_\w+&endpoint=whe_\w+&sent=whd_\w+#webhooks$/,
    );
    assert.equal(r.requests.length, 1);
    assert.equal(verifyDelivery(endpoint.secret, r.requests[0]!, h.clock.now()).type, 'test');

    const answer = await developer.get(locationOf(res));
    const text = textOf(answer.body);
    assert.match(text, /The test event was delivered: the receiver answered HTTP 202 in \d+ ms/);
    assert.match(answer.body, /<pre class="excerpt">accepted by shop<\/pre>/);
    assert.match(text, /Result for https:\/\/shop\.example\.org/, 'the origin check is kept');

    const refused = await developer.post(`/developers/integration/webhooks/${disabled.id}/test`, {});
    assert.equal(refused.statusCode, 409);
    assert.match(textOf(refused.body), /This endpoint is disabled/);
    assert.equal(off.requests.length, 0);
    assert.equal((await viewer.post(`/developers/integration/webhooks/${endpoint.id}/test`)).statusCode, 403);
    assert.equal(r.requests.length, 1);
  });

  test('an origin over the admin API limit is the checker again with its message, and no test event is sent', async () => {
    const r = await startReceiver();
    receivers.push(r);
    const endpoint = await createEndpoint(h, partner.organizationId, r.url);
    const max = limitOf(ClientCreateIn.properties.allowed_domains.items, 'maxLength');
    const long = `https://${'a'.repeat(max)}.example.org`;
    const message = new RegExp(`id="f-origin-error">The site origin must be at most ${max} characters\\.`);
    const asked = await check(developer, long);
    assert.equal(asked.statusCode, 422);
    assert.match(asked.body, message);
    const res = await developer.post(`/developers/integration/webhooks/${endpoint.id}/test`, {
      origin: long,
      client: 'not-a-client',
    });
    assert.equal(res.statusCode, 422);
    assert.match(res.body, message);
    assert.match(res.body, /<title>Error: Integration checker/);
    assert.equal(r.requests.length, 0);
  });
});
