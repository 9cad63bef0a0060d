// Webhook endpoints in the organizer app: added (a bad URL comes back with the field error and
// makes nothing; the secret is shown once), a test event sent now reaching a receiver on loopback
// and verified with the standardwebhooks package, edited, disabled (retry then refused with 409)
// and enabled, the secret rotated (both secrets sign), the delivery log paged, deleted after a
// confirmation; each change has its audit entry and no entry holds a secret; a viewer reads only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { limitOf } from '../../src/app/form-body.ts';
import { listAuditEvents } from '../../src/audit/audit-log.ts';
import { UrlIn } from '../../src/webhooks/endpoint-input.ts';
import { findWebhookEndpoint, listWebhookEndpoints } from '../../src/webhooks/webhook-endpoints.ts';
import { listDeliveries } from '../../src/webhooks/webhook-deliveries.ts';
import { makePartner, type Harness, type TestPartner } from '../helpers/harness.ts';
import {
  startReceiver,
  startWebhookHarness,
  verifyDelivery,
  type Receiver,
} from '../webhooks/webhook-helpers.ts';
import { Agent, locationOf, makeMember, signIn, textOf } from './app-helpers.ts';

let h: Harness;
let partner: TestPartner;
let developer: Agent;
let viewer: Agent;
const receivers: Receiver[] = [];

before(async () => {
  h = await startWebhookHarness();
  partner = await makePartner(h);
  developer = await signIn(h, await makeMember(h, partner.organizationId, 'developer'));
  viewer = await signIn(h, await makeMember(h, partner.organizationId, 'viewer'));
});
after(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await h.close();
});

async function receiver(respond?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

const db = () => h.service.ctx.database.db;

function secretOn(body: string): string {
  const match = /<code class="secret" id="signing-secret">([^<]+)<\/code>/.exec(body);
  assert.ok(match, 'the signing secret is shown');
  return match[1]!;
}

/** Adds an endpoint through the form; its id and secret. */
async function addEndpoint(agent: Agent, url: string) {
  await agent.get('/developers/webhooks/new');
  const res = await agent.post('/developers/webhooks', { url, events: ['order.paid'] });
  assert.equal(res.statusCode, 201, res.body.slice(0, 500));
  const id = /href="\/developers\/webhooks\/(whe_\w+)"/.exec(res.body)?.[1];
  assert.ok(id, 'the page links to the endpoint');
  return { id, secret: secretOn(res.body) };
}

async function auditOf(organizationId = partner.organizationId) {
  return (await listAuditEvents(db(), organizationId, { limit: 50 })).rows;
}

describe('webhook endpoint pages', () => {
  test('the form offers every event type checked; a bad URL is 422 with the field error and nothing is made', async () => {
    const form = await developer.get('/developers/webhooks/new');
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<label for="f-url">Endpoint URL<\/label>/);
    assert.match(form.body, /type="checkbox"[^>]*name="events"[^>]*value="order\.paid"[^>]*checked/);

    const before = (await listWebhookEndpoints(db(), partner.organizationId)).length;
    for (const [url, message] of [
      ['', /Enter the endpoint URL/],
      ['not a url', /The endpoint URL must be an absolute URL/],
      ['ftp://127.0.0.1/x', /The endpoint URL must use http or https/],
      ['https://user:pw@127.0.0.1/x', /must not carry a user name or password/],
      ['https://nowhere.example.invalid/hooks', /must name a host that resolves/],
    ] as const) {
      const res = await developer.post('/developers/webhooks', { url, events: ['order.paid'] });
      assert.equal(res.statusCode, 422, url);
      assert.match(res.body, /<title>Error: Add webhook endpoint/);
      assert.match(res.body, /<p class="error" id="f-url-error">/);
      assert.match(res.body, /aria-invalid="true"/);
      assert.match(textOf(res.body), message);
    }
    const none = await developer.post('/developers/webhooks', { url: 'http://127.0.0.1:9/hooks' });
    assert.equal(none.statusCode, 422);
    assert.match(textOf(none.body), /Choose at least one event type/);
    assert.doesNotMatch(none.body, /value="order\.paid"[^>]*checked/, 'the unchecked box stays unchecked');
    const unknown = await developer.post('/developers/webhooks', {
      url: 'http://127.0.0.1:9/hooks',
      events: ['order.shipped'],
    });
    assert.equal(unknown.statusCode, 422);
    assert.match(unknown.body, /id="f-events-error">Choose event types from the list\./);
    const max = limitOf(UrlIn, 'maxLength');
    const long = await developer.post('/developers/webhooks', {
      url: `http://127.0.0.1:9/${'a'.repeat(max)}`,
      events: ['order.paid'],
    });
    assert.equal(long.statusCode, 422);
    assert.match(long.body, new RegExp(`id="f-url-error">Endpoint URL must be at most ${max} characters\\.`));
    assert.equal((await listWebhookEndpoints(db(), partner.organizationId)).length, before);
  });

  test('added: the secret is shown once with a copy button, the endpoint is listed, and audited without the secret', async () => {
    const r = await receiver();
    const { id, secret } = await addEndpoint(developer, r.url);
    assert.match(secret, /^whsec_/);
    const row = await findWebhookEndpoint(db(), id);
    assert.equal(row?.secret, secret);
    assert.deepEqual(row?.eventTypes, ['order.paid']);

    const page = await developer.get(`/developers/webhooks/${id}`);
    assert.equal(page.statusCode, 200);
    assert.ok(!page.body.includes(secret), 'the endpoint page never shows the secret');
    assert.ok(!page.body.includes(secret.slice(6, 20)), 'not even part of it');

    const list = await developer.get('/developers');
    assert.match(list.body, /<h2 id="webhooks">Webhook endpoints<\/h2>/);
    assert.ok(list.body.includes(`href="/developers/webhooks/${id}"`));
    assert.ok(list.body.includes(r.url));
    assert.match(list.body, /href="\/developers\/webhooks\/new">Add webhook endpoint/);
    assert.match(list.body, /href="\/developers\/integration"/);

    const entry = (await auditOf()).find((e) => e.targetId === id && e.action === 'webhook_endpoint.created');
    assert.ok(entry, 'the creation is audited');
    assert.deepEqual(entry.details, { url: r.url, events: ['order.paid'] });
    assert.equal(entry.actorMemberId !== null, true);
    assert.ok(!JSON.stringify(entry).includes(secret));
  });

  test('Send test event: one signed request now, verified by standardwebhooks, the 2xx attempt in the log', async () => {
    const r = await receiver(() => ({ status: 200, body: 'thanks from the receiver' }));
    const { id, secret } = await addEndpoint(developer, r.url);
    await developer.get(`/developers/webhooks/${id}`);
    const res = await developer.post(`/developers/webhooks/${id}/test`);
    assert.equal(res.statusCode, 303, res.body.slice(0, 300));
    assert.match(locationOf(res), new RegExp(`^/developers/webhooks/${id}\\?sent=whd_\\w+$`));
    assert.equal(r.requests.length, 1, 'sent in the request, before the redirect');
    const payload = verifyDelivery(secret, r.requests[0]!, h.clock.now());
    assert.equal(payload.type, 'test');
    assert.equal(payload.data.endpoint_id, id);

    const page = await developer.get(locationOf(res));
    const text = textOf(page.body);
    assert.match(text, /The test event was delivered: the receiver answered HTTP 200 in \d+ ms/);
    assert.match(page.body, /class="notice good" role="status"/);
    assert.match(text, /test delivered Created/);
    assert.match(page.body, /<pre class="excerpt">thanks from the receiver<\/pre>/);
    assert.ok(page.body.includes(String(r.requests[0]!.headers['webhook-id'])), 'the webhook-id is shown');

    // The queued job finds it delivered and sends nothing more.
    await h.service.jobs.runDue();
    assert.equal(r.requests.length, 1);
  });

  test('a failing receiver: the notice says so, Retry sends the same webhook-id again and shows each attempt', async () => {
    let status = 500;
    const r = await receiver(() => ({ status, body: `status ${status}` }));
    const { id } = await addEndpoint(developer, r.url);
    await developer.get(`/developers/webhooks/${id}`);
    const sent = await developer.post(`/developers/webhooks/${id}/test`);
    const page = await developer.get(locationOf(sent));
    assert.match(
      textOf(page.body),
      /was not delivered: the receiver gave HTTP 500 in \d+ ms, not a 2xx status\. It will be tried again/,
    );
    assert.match(page.body, /class="notice bad"/);
    const deliveryId = /sent=(whd_\w+)/.exec(locationOf(sent))![1]!;

    status = 204;
    const retried = await developer.post(`/developers/webhooks/${id}/deliveries/${deliveryId}/retry`);
    assert.equal(retried.statusCode, 303);
    assert.equal(r.requests.length, 2);
    assert.equal(r.requests[0]!.headers['webhook-id'], r.requests[1]!.headers['webhook-id']);
    const after = await developer.get(locationOf(retried));
    const text = textOf(after.body);
    assert.match(text, /was delivered: the receiver answered HTTP 204/);
    assert.match(text, /HTTP 500 \d+ ms status 500 .*HTTP 204 \d+ ms/, 'both attempts, oldest first');

    const foreign = await developer.post(
      `/developers/webhooks/${id}/deliveries/whd_ZZZZZZZZZZZZZZZZZZZZZZZZ/retry`,
    );
    assert.equal(foreign.statusCode, 404);
  });

  test('edit: the URL and event types are saved and audited; a bad URL comes back 422 and changes nothing', async () => {
    const [r1, r2] = [await receiver(), await receiver()];
    const { id } = await addEndpoint(developer, r1.url);
    await developer.get(`/developers/webhooks/${id}`);
    const bad = await developer.post(`/developers/webhooks/${id}`, {
      url: 'http://',
      events: ['order.paid'],
    });
    assert.equal(bad.statusCode, 422);
    assert.match(bad.body, /<p class="error" id="f-url-error">/);
    assert.match(bad.body, /value="http:\/\/"/, 'what was typed is kept');
    assert.equal((await findWebhookEndpoint(db(), id))?.url, r1.url);
    const unknown = await developer.post(`/developers/webhooks/${id}`, {
      url: r2.url,
      events: ['order.paid', 'order.shipped'],
    });
    assert.equal(unknown.statusCode, 422);
    assert.match(unknown.body, /id="f-events-error">Choose event types from the list\./);
    assert.match(unknown.body, /value="order\.paid"[^>]*checked/, 'the known type stays checked');
    assert.equal((await findWebhookEndpoint(db(), id))?.url, r1.url);

    const saved = await developer.post(`/developers/webhooks/${id}`, { url: r2.url, events: ['order.paid'] });
    assert.equal(saved.statusCode, 303);
    assert.equal(locationOf(saved), `/developers/webhooks/${id}?done=updated`);
    assert.equal((await findWebhookEndpoint(db(), id))?.url, r2.url);
    const page = await developer.get(locationOf(saved));
    assert.match(textOf(page.body), /The endpoint was saved/);
    const entry = (await auditOf()).find((e) => e.targetId === id && e.action === 'webhook_endpoint.updated');
    assert.deepEqual(entry?.details, { url: r2.url, events: ['order.paid'], previous_url: r1.url });
  });

  test('disable and enable: each audited once; a disabled endpoint refuses test and retry with 409', async () => {
    const r = await receiver();
    const { id } = await addEndpoint(developer, r.url);
    await developer.get(`/developers/webhooks/${id}`);
    const sent = await developer.post(`/developers/webhooks/${id}/test`);
    const deliveryId = /sent=(whd_\w+)/.exec(locationOf(sent))![1]!;

    assert.equal(
      locationOf(await developer.post(`/developers/webhooks/${id}/disable`)),
      `/developers/webhooks/${id}?done=disabled`,
    );
    await developer.post(`/developers/webhooks/${id}/disable`); // twice: one change, one entry
    const row = await findWebhookEndpoint(db(), id);
    assert.equal(row?.status, 'disabled');
    assert.equal(row?.disabledReason, 'manual');
    const page = await developer.get(`/developers/webhooks/${id}`);
    assert.match(textOf(page.body), /Disabled by hand/);
    assert.match(page.body, /Enable endpoint/);
    assert.doesNotMatch(page.body, />\s*Send test event\s*</);

    for (const url of [
      `/developers/webhooks/${id}/test`,
      `/developers/webhooks/${id}/deliveries/${deliveryId}/retry`,
    ]) {
      const res = await developer.post(url);
      assert.equal(res.statusCode, 409, url);
      assert.match(textOf(res.body), /This endpoint is disabled: enable it before sending to it/);
    }
    assert.equal(r.requests.length, 1, 'nothing more was sent');

    assert.equal(
      locationOf(await developer.post(`/developers/webhooks/${id}/enable`)),
      `/developers/webhooks/${id}?done=enabled`,
    );
    assert.equal((await findWebhookEndpoint(db(), id))?.status, 'enabled');
    const actions = (await auditOf()).filter((e) => e.targetId === id).map((e) => e.action);
    assert.deepEqual(actions.sort(), [
      'webhook_endpoint.created',
      'webhook_endpoint.disabled',
      'webhook_endpoint.enabled',
    ]);
  });

  test('rotate: the new secret shown once, the old one keeps signing for 24 hours, audited without secrets', async () => {
    const r = await receiver();
    const { id, secret: oldSecret } = await addEndpoint(developer, r.url);
    await developer.get(`/developers/webhooks/${id}`);
    const res = await developer.post(`/developers/webhooks/${id}/rotate-secret`);
    assert.equal(res.statusCode, 200);
    const newSecret = secretOn(res.body);
    assert.notEqual(newSecret, oldSecret);
    assert.match(textOf(res.body), /The old secret keeps signing too, alongside the new one, for 24 hours/);
    assert.match(res.body, /data-copy="signing-secret"/);

    const page = await developer.get(`/developers/webhooks/${id}`);
    assert.match(textOf(page.body), /the previous secret also signs until/);
    assert.ok(!page.body.includes(newSecret) && !page.body.includes(oldSecret));
    await developer.post(`/developers/webhooks/${id}/test`);
    verifyDelivery(newSecret, r.requests[0]!, h.clock.now());
    verifyDelivery(oldSecret, r.requests[0]!, h.clock.now());

    const entry = (await auditOf()).find(
      (e) => e.targetId === id && e.action === 'webhook_endpoint.secret_rotated',
    );
    assert.ok(entry);
    assert.ok(!JSON.stringify(entry).includes(newSecret) && !JSON.stringify(entry).includes(oldSecret));
  });

  test('the delivery log is newest first and paged with Older deliveries', async () => {
    const r = await receiver();
    const { id } = await addEndpoint(developer, r.url);
    await developer.get(`/developers/webhooks/${id}`);
    for (let i = 0; i < 12; i++) {
      await developer.post(`/developers/webhooks/${id}/test`);
      h.clock.advance(1000);
    }
    const endpoint = (await findWebhookEndpoint(db(), id))!;
    const all = (await listDeliveries(db(), endpoint, { limit: 50 })).rows.map((d) => d.id);
    assert.equal(all.length, 12);
    const first = await developer.get(`/developers/webhooks/${id}`);
    const shown = (body: string) =>
      [...body.matchAll(/<li class="delivery panel" id="delivery-(whd_\w+)"/g)].map((m) => m[1]);
    assert.deepEqual(shown(first.body), all.slice(0, 10));
    const older = /href="(\/developers\/webhooks\/whe_\w+\?cursor=[^"#]+)#log">Older deliveries/.exec(
      first.body,
    )?.[1];
    assert.ok(older, 'a link to older deliveries');
    const second = await developer.get(older.replace(/&amp;/g, '&'));
    assert.deepEqual(shown(second.body), all.slice(10));
    assert.match(second.body, />Newest deliveries</);
    assert.doesNotMatch(second.body, />Older deliveries</);
    const tampered = await developer.get(`/developers/webhooks/${id}?cursor=nonsense`);
    assert.deepEqual(shown(tampered.body), all.slice(0, 10), 'a cursor that does not open shows the newest');
  });

  test('delete: a confirmation page, then the endpoint is gone from the list, audited', async () => {
    const r = await receiver();
    const { id } = await addEndpoint(developer, r.url);
    const confirm = await developer.get(`/developers/webhooks/${id}/delete`);
    assert.equal(confirm.statusCode, 200);
    assert.match(textOf(confirm.body), /Delete this webhook endpoint\?/);
    assert.ok(await findWebhookEndpoint(db(), id), 'the GET deletes nothing');
    const res = await developer.post(`/developers/webhooks/${id}/delete`);
    assert.equal(locationOf(res), '/developers?done=webhook_deleted');
    assert.equal(await findWebhookEndpoint(db(), id), undefined);
    const list = await developer.get(locationOf(res));
    assert.match(textOf(list.body), /The webhook endpoint was deleted/);
    assert.ok(!list.body.includes(id));
    assert.equal((await developer.get(`/developers/webhooks/${id}`)).statusCode, 404);
    const entry = (await auditOf()).find((e) => e.targetId === id && e.action === 'webhook_endpoint.deleted');
    assert.deepEqual(entry?.details, { url: r.url, events: ['order.paid'] });
  });

  test("a viewer reads the endpoint and its log without any form; another organization's endpoint is 404", async () => {
    const r = await receiver();
    const { id } = await addEndpoint(developer, r.url);
    await developer.get(`/developers/webhooks/${id}`);
    await developer.post(`/developers/webhooks/${id}/test`);
    const page = await viewer.get(`/developers/webhooks/${id}`);
    assert.equal(page.statusCode, 200);
    assert.match(textOf(page.body), /Your role can see this endpoint but not change it/);
    assert.match(textOf(page.body), /test delivered/);
    assert.doesNotMatch(page.body, /method="post" action="\/developers\/webhooks/);
    assert.equal((await viewer.get('/developers/webhooks/new')).statusCode, 403);

    const other = await makePartner(h);
    const stranger = await signIn(h, await makeMember(h, other.organizationId, 'owner'));
    const theirs = await stranger.get(`/developers/webhooks/${id}`);
    assert.equal(theirs.statusCode, 404);
    const missing = await stranger.get('/developers/webhooks/whe_ZZZZZZZZZZZZZZZZZZZZZZZZ');
    assert.equal(
      theirs.body.replace(/name="_csrf" value="[^"]+"/g, ''),
      missing.body.replace(/name="_csrf" value="[^"]+"/g, ''),
    );
    assert.equal((await stranger.post(`/developers/webhooks/${id}/delete`)).statusCode, 404);
    assert.ok(await findWebhookEndpoint(db(), id));
    assert.deepEqual(await auditOf(other.organizationId), []);
  });
});
