// The operator's changes through the admin API (and so the CLI) land in the organization's audit
// log as "operator", with the client IP, one entry per change and never a secret.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { listAuditEvents } from '../../src/audit/audit-log.ts';
import type { Harness } from '../helpers/harness.ts';
import { startReceiver, startWebhookHarness, type Receiver } from '../webhooks/webhook-helpers.ts';
import { admin, createOrg, dataOf } from './admin-helpers.ts';

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

const call = (method: 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
  admin(h, { method, url, ...(body !== undefined && { body }) });

async function auditOf(orgId: string) {
  const { rows } = await listAuditEvents(h.service.ctx.database.db, orgId, { limit: 100 });
  return rows.reverse();
}

test('each client, webhook endpoint and invitation change is one operator entry', async () => {
  const org = await createOrg(h);
  const client = dataOf(
    await call('POST', `/organizations/${org.id}/clients`, {
      name: 'Shop',
      scopes: ['events:read'],
      allowed_domains: ['https://a.example.org'],
    }),
    201,
  );
  dataOf(
    await call('PATCH', `/clients/${client.client_id}`, {
      name: 'Shop 2',
      scopes: ['events:read', 'orders:read'],
      allowed_domains: ['https://b.example.org'],
    }),
    200,
  );
  // the same list again changes nothing and records nothing
  dataOf(
    await call('PATCH', `/clients/${client.client_id}`, { allowed_domains: ['https://b.example.org'] }),
    200,
  );
  dataOf(await call('PATCH', `/clients/${client.client_id}`, { display_name: 'Shop for runners' }), 200);
  dataOf(await call('PATCH', `/clients/${client.client_id}`, { display_name: ' Shop for runners ' }), 200);
  dataOf(await call('PATCH', `/clients/${client.client_id}`, { display_name: null }), 200);
  const rotated = dataOf(await call('POST', `/clients/${client.client_id}/rotate-secret`), 200);
  const key = dataOf(await call('POST', `/clients/${client.client_id}/regenerate-publishable-key`), 200);
  dataOf(await call('POST', `/clients/${client.client_id}/revoke`), 200);
  dataOf(await call('POST', `/clients/${client.client_id}/revoke`), 200);

  const endpoint = dataOf(
    await call('POST', `/organizations/${org.id}/webhook-endpoints`, { url: r.url }),
    201,
  );
  const path = `/webhook-endpoints/${endpoint.id}`;
  dataOf(await call('PATCH', path, { url: `${r.url}?v=2` }), 200);
  dataOf(await call('POST', `${path}/disable`), 200);
  dataOf(await call('POST', `${path}/disable`), 200);
  dataOf(await call('POST', `${path}/enable`), 200);
  const whsec = dataOf(await call('POST', `${path}/rotate-secret`), 200);
  dataOf(await call('DELETE', path), 200);
  dataOf(
    await call('POST', `/organizations/${org.id}/invitations`, {
      email: 'runner@example.org',
      role: 'admin',
    }),
    201,
  );

  const rows = await auditOf(org.id);
  assert.deepEqual(
    rows.map((row) => [row.action, row.details]),
    [
      [
        'client.created',
        {
          name: 'Shop',
          display_name: null,
          scopes: ['events:read'],
          allowed_domains: ['https://a.example.org'],
          return_url_domains: [],
        },
      ],
      ['client.renamed', { name: 'Shop 2' }],
      ['client.scopes_changed', { scopes: ['events:read', 'orders:read'] }],
      ['client.domain_added', { list: 'allowed_domains', origin: 'https://b.example.org' }],
      ['client.domain_removed', { list: 'allowed_domains', origin: 'https://a.example.org' }],
      // the same name again (it is trimmed) records nothing
      ['client.display_name_changed', { display_name: 'Shop for runners' }],
      ['client.display_name_changed', { display_name: null }],
      ['client.secret_rotated', {}],
      ['client.publishable_key_regenerated', {}],
      ['client.revoked', {}],
      ['webhook_endpoint.created', { url: r.url, events: ['order.paid'] }],
      ['webhook_endpoint.updated', { url: `${r.url}?v=2`, previous_url: r.url }],
      ['webhook_endpoint.disabled', { url: `${r.url}?v=2`, reason: 'manual' }],
      ['webhook_endpoint.enabled', { url: `${r.url}?v=2`, previous_reason: 'manual' }],
      ['webhook_endpoint.secret_rotated', { url: `${r.url}?v=2` }],
      ['webhook_endpoint.deleted', { url: `${r.url}?v=2`, events: ['order.paid'] }],
      ['member.invited', { email: 'runner@example.org', role: 'admin' }],
    ],
  );
  for (const row of rows) {
    assert.equal(row.actorLabel, 'operator');
    assert.equal(row.actorMemberId, null);
    assert.equal(row.ip, '127.0.0.1');
  }
  const text = JSON.stringify(rows);
  for (const secret of [client.client_secret, rotated.client_secret, endpoint.secret, whsec.secret]) {
    assert.ok(!text.includes(secret), 'no secret in the audit log');
  }
  assert.ok(!text.includes(key.publishable_key));
});

test('a refused change records nothing', async () => {
  const org = await createOrg(h);
  const res = await call('POST', `/organizations/${org.id}/clients`, { name: 'Shop', scopes: ['nope'] });
  assert.equal(res.statusCode, 400);
  const bad = await call('POST', `/organizations/${org.id}/webhook-endpoints`, { url: 'ftp://x' });
  assert.equal(bad.statusCode, 400);
  const client = dataOf(
    await call('POST', `/organizations/${org.id}/clients`, { name: 'Shop', scopes: ['events:read'] }),
    201,
  );
  await auditOf(org.id).then((rows) => assert.equal(rows.length, 1));
  const long = await call('PATCH', `/clients/${client.client_id}`, { display_name: 'x'.repeat(61) });
  assert.equal(long.statusCode, 400);
  assert.deepEqual(
    (await auditOf(org.id)).map((row) => row.action),
    ['client.created'],
  );
});
