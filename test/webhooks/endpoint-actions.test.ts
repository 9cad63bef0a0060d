// A webhook endpoint's life (created, changed, disabled, enabled, its secret rotated, deleted) is a
// set of actions (src/webhooks/actions/) that the admin API, the partner API and the organizer app
// all call: from each, the same changes leave the same audit entries, only the actor differs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listAuditEvents } from '../../src/audit/audit-log.ts';
import { admin } from '../admin/admin-helpers.ts';
import { makeMember, signIn, type Agent } from '../app/app-helpers.ts';
import { bearer, getToken, makePartner, type Harness, type TestPartner } from '../helpers/harness.ts';
import { startReceiver, startWebhookHarness, type Receiver } from './webhook-helpers.ts';

let h: Harness;
let r: Receiver;

before(async () => {
  h = await startWebhookHarness();
  r = await startReceiver();
});
after(async () => {
  await r.close();
  await h.close();
});

/** One interface's way to do each step, for an endpoint of `partner`'s organization. */
interface Interface {
  create(url: string): Promise<string>;
  update(id: string, url: string): Promise<void>;
  setStatus(id: string, status: 'enabled' | 'disabled'): Promise<void>;
  rotate(id: string): Promise<void>;
  remove(id: string): Promise<void>;
  /** the audit entries' actor label */
  actor: string;
}

function adminInterface(organizationId: string): Interface {
  const call = async (method: 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) => {
    const res = await admin(h, { method, url, ...(body !== undefined && { body }) });
    assert.ok(res.statusCode < 300, res.body);
    return (res.json() as { data: Record<string, unknown> }).data;
  };
  return {
    actor: 'operator',
    create: async (url) =>
      (await call('POST', `/organizations/${organizationId}/webhook-endpoints`, { url })).id as string,
    update: async (id, url) =>
      void (await call('PATCH', `/webhook-endpoints/${id}`, { url, events: ['order.paid'] })),
    setStatus: async (id, status) =>
      void (await call('POST', `/webhook-endpoints/${id}/${status === 'enabled' ? 'enable' : 'disable'}`)),
    rotate: async (id) => void (await call('POST', `/webhook-endpoints/${id}/rotate-secret`)),
    remove: async (id) => void (await call('DELETE', `/webhook-endpoints/${id}`)),
  };
}

async function partnerInterface(partner: TestPartner): Promise<Interface> {
  const token = await getToken(h, partner);
  const api = async (method: 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) => {
    const res = await h.service.api.inject({
      method,
      url: `/v1${url}`,
      headers: { ...bearer(token), ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { payload: JSON.stringify(body) }),
    });
    assert.ok(res.statusCode < 300, res.body);
    return JSON.parse(res.body).data as Record<string, unknown>;
  };
  return {
    actor: `API client ${partner.clientId}`,
    create: async (url) => (await api('POST', '/webhook-endpoints', { url })).id as string,
    update: async (id, url) =>
      void (await api('PATCH', `/webhook-endpoints/${id}`, { url, events: ['order.paid'] })),
    setStatus: async (id, status) => void (await api('PATCH', `/webhook-endpoints/${id}`, { status })),
    rotate: async () => {
      throw new Error('the partner API has no secret rotation');
    },
    remove: async (id) => void (await api('DELETE', `/webhook-endpoints/${id}`)),
  };
}

async function appInterface(partner: TestPartner): Promise<Interface> {
  const member = await makeMember(h, partner.organizationId, 'developer');
  const agent: Agent = await signIn(h, member);
  const post = async (path: string, fields: Record<string, string | string[]> = {}) => {
    const res = await agent.post(path, fields);
    assert.ok(res.statusCode < 400, `${path}: ${res.statusCode}`);
    return res;
  };
  return {
    actor: member.email,
    create: async (url) => {
      await agent.get('/developers/webhooks/new');
      const res = await post('/developers/webhooks', { url, events: ['order.paid'] });
      return /href="\/developers\/webhooks\/(whe_\w+)"/.exec(res.body)![1]!;
    },
    update: async (id, url) => {
      await agent.get(`/developers/webhooks/${id}`);
      await post(`/developers/webhooks/${id}`, { url, events: ['order.paid'] });
    },
    setStatus: async (id, status) => {
      await agent.get(`/developers/webhooks/${id}`);
      await post(`/developers/webhooks/${id}/${status === 'enabled' ? 'enable' : 'disable'}`);
    },
    rotate: async (id) => {
      await agent.get(`/developers/webhooks/${id}`);
      await post(`/developers/webhooks/${id}/rotate-secret`);
    },
    remove: async (id) => {
      await agent.get(`/developers/webhooks/${id}/delete`);
      await post(`/developers/webhooks/${id}/delete`);
    },
  };
}

/** The audit entries of the endpoint, oldest first, as [action, details], and their actors. */
async function entriesOf(organizationId: string, id: string) {
  const { rows } = await listAuditEvents(h.service.ctx.database.db, organizationId, { limit: 50 });
  const mine = rows.filter((row) => row.targetId === id).reverse();
  return {
    entries: mine.map((row) => [row.action, row.details]),
    actors: new Set(mine.map((row) => row.actorLabel)),
  };
}

/** Walks one endpoint through its life; returns what the audit log says of it. */
async function lifeOf(via: Interface, organizationId: string, steps: { rotate: boolean }) {
  const id = await via.create(r.url);
  await via.update(id, `${r.url}?v=2`);
  await via.setStatus(id, 'disabled');
  await via.setStatus(id, 'disabled'); // already disabled: no second entry
  await via.setStatus(id, 'enabled');
  if (steps.rotate) await via.rotate(id);
  await via.remove(id);
  const { entries, actors } = await entriesOf(organizationId, id);
  assert.deepEqual([...actors], [via.actor]);
  return entries;
}

describe('webhook endpoint actions', () => {
  test('the admin API, the partner API and the app leave the same audit entries', async () => {
    const expected = (rotate: boolean) => [
      ['webhook_endpoint.created', { url: r.url, events: ['order.paid'] }],
      ['webhook_endpoint.updated', { url: `${r.url}?v=2`, previous_url: r.url, events: ['order.paid'] }],
      ['webhook_endpoint.disabled', { url: `${r.url}?v=2`, reason: 'manual' }],
      ['webhook_endpoint.enabled', { url: `${r.url}?v=2`, previous_reason: 'manual' }],
      ...(rotate ? [['webhook_endpoint.secret_rotated', { url: `${r.url}?v=2` }]] : []),
      ['webhook_endpoint.deleted', { url: `${r.url}?v=2`, events: ['order.paid'] }],
    ];
    const viaAdmin = await makePartner(h);
    assert.deepEqual(
      await lifeOf(adminInterface(viaAdmin.organizationId), viaAdmin.organizationId, { rotate: true }),
      expected(true),
    );
    const viaPartner = await makePartner(h);
    assert.deepEqual(
      await lifeOf(await partnerInterface(viaPartner), viaPartner.organizationId, { rotate: false }),
      expected(false),
    );
    const viaApp = await makePartner(h);
    assert.deepEqual(
      await lifeOf(await appInterface(viaApp), viaApp.organizationId, { rotate: true }),
      expected(true),
    );
  });
});

describe('one endpoint per URL', () => {
  /** The organization's endpoints' ids and URLs, oldest first. */
  async function endpointsOf(organizationId: string) {
    const res = await admin(h, { method: 'GET', url: `/organizations/${organizationId}/webhook-endpoints` });
    const data = (res.json() as { data: { webhook_endpoints: { id: string; url: string }[] } }).data;
    return data.webhook_endpoints.map(({ id, url }) => ({ id, url }));
  }

  test('a second endpoint for a URL is refused from each interface, naming the first', async () => {
    const partner = await makePartner(h);
    const org = partner.organizationId;
    const token = await getToken(h, partner);
    const api = (method: 'POST' | 'PATCH', url: string, body: unknown) =>
      h.service.api.inject({
        method,
        url: `/v1${url}`,
        headers: { ...bearer(token), 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const first = await api('POST', '/webhook-endpoints', { url: r.url });
    assert.equal(first.statusCode, 201, first.body);
    const firstId = first.json().data.id as string;
    const other = await api('POST', '/webhook-endpoints', { url: `${r.url}?v=2` });
    const otherId = other.json().data.id as string;
    const before = await endpointsOf(org);

    const named = (body: string) => {
      const error = JSON.parse(body) as { code: number; error_code: string; message: string };
      assert.equal(error.code, 409);
      assert.equal(error.error_code, 'webhook_endpoint_exists');
      assert.match(error.message, new RegExp(firstId));
      assert.ok(error.message.includes(r.url), error.message);
    };
    const again = await api('POST', '/webhook-endpoints', { url: r.url });
    assert.equal(again.statusCode, 409);
    named(again.body);
    const moved = await api('PATCH', `/webhook-endpoints/${otherId}`, { url: r.url });
    assert.equal(moved.statusCode, 409);
    named(moved.body);
    const viaAdmin = await admin(h, {
      method: 'POST',
      url: `/organizations/${org}/webhook-endpoints`,
      body: { url: r.url },
    });
    assert.equal(viaAdmin.statusCode, 409);
    named(viaAdmin.body);
    const movedByAdmin = await admin(h, {
      method: 'PATCH',
      url: `/webhook-endpoints/${otherId}`,
      body: { url: r.url },
    });
    assert.equal(movedByAdmin.statusCode, 409);
    named(movedByAdmin.body);

    const member = await makeMember(h, org, 'developer');
    const agent = await signIn(h, member);
    await agent.get('/developers/webhooks/new');
    const page = await agent.post('/developers/webhooks', { url: r.url, events: ['order.paid'] });
    assert.equal(page.statusCode, 422);
    assert.ok(page.body.includes(firstId), 'the form names the endpoint that has the URL');

    assert.deepEqual(await endpointsOf(org), before, 'nothing was created or changed');
    const { entries } = await entriesOf(org, otherId);
    assert.deepEqual(
      entries.map(([action]) => action),
      ['webhook_endpoint.created'],
    );
    // Its own URL again is no conflict, and another organization may use the same URL.
    assert.equal((await api('PATCH', `/webhook-endpoints/${firstId}`, { url: r.url })).statusCode, 200);
    const elsewhere = await makePartner(h);
    const theirs = await admin(h, {
      method: 'POST',
      url: `/organizations/${elsewhere.organizationId}/webhook-endpoints`,
      body: { url: r.url },
    });
    assert.equal(theirs.statusCode, 201, theirs.body);
  });

  test('two registrations of one URL at the same moment make one endpoint', async () => {
    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        h.service.api.inject({
          method: 'POST',
          url: '/v1/webhook-endpoints',
          headers: { ...bearer(token), 'content-type': 'application/json' },
          payload: JSON.stringify({ url: `${r.url}?same=1` }),
        }),
      ),
    );
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [201, 409, 409]);
    assert.equal((await endpointsOf(partner.organizationId)).length, 1);
  });
});
