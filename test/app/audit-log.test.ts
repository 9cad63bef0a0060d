// The audit log page and the entries the app's client routes write: owners and admins read it
// (developers and viewers get 403 and no link), newest first, 50 a page with "Older entries";
// every change to an API client made in the app is one entry, with its details and no secret.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listAuditEvents, recordAudit, type Actor, type AuditEntry } from '../../src/audit/audit-log.ts';
import { findEvent } from '../../src/events/events.ts';
import { findApiClient } from '../../src/auth/clients.ts';
import { makeEvent, makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { Agent, locationOf, makeMember, makeOrganization, signIn, textOf } from './app-helpers.ts';

let h: Harness;
let organizationId: string;
let owner: Agent;
let ownerEmail: string;

before(async () => {
  h = await startHarness();
  organizationId = (await makePartner(h)).organizationId;
  const member = await makeMember(h, organizationId, 'owner');
  ownerEmail = member.email;
  owner = await signIn(h, member);
});
after(() => h.close());

const db = () => h.service.ctx.database.db;

async function entries(orgId = organizationId) {
  return (await listAuditEvents(db(), orgId, { limit: 500 })).rows;
}

function shown(body: string, id: string): string {
  const match = new RegExp(`<code class="secret" id="${id}">([^<]+)</code>`).exec(body);
  assert.ok(match, `${id} is shown`);
  return match[1]!;
}

describe('audit log page', () => {
  test('owners and admins read it from the nav; developers and viewers get 403 and no link', async () => {
    assert.match(textOf((await owner.get('/')).body), /Audit log/);
    assert.equal((await owner.get('/audit-log')).statusCode, 200);
    const admin = await signIn(h, await makeMember(h, organizationId, 'admin'));
    assert.equal((await admin.get('/audit-log')).statusCode, 200);
    for (const role of ['developer', 'viewer'] as const) {
      const agent = await signIn(h, await makeMember(h, organizationId, role));
      const home = await agent.get('/');
      assert.doesNotMatch(home.body, /href="\/audit-log"/, `${role}: no Audit log link`);
      assert.match(home.body, /href="\/members"/, `${role}: Members link`);
      const res = await agent.get('/audit-log');
      assert.equal(res.statusCode, 403, role);
      assert.match(res.body, /Your role cannot do this/);
      assert.doesNotMatch(res.body, /<h1>Audit log/);
    }
  });

  test('a new organization shows the empty state', async () => {
    const org = await makeOrganization(h);
    const agent = await signIn(h, await makeMember(h, org.id, 'owner'));
    const res = await agent.get('/audit-log');
    assert.equal(res.statusCode, 200);
    assert.match(textOf(res.body), /Nothing has been recorded yet\./);
    assert.doesNotMatch(res.body, /Older entries/);
  });

  test('every client change in the app is one entry, with details and never a secret', async () => {
    const start = (await entries()).length;
    const created = await owner.post('/developers/clients', {
      name: 'Audited shop',
      scopes: ['events:read'],
    });
    assert.equal(created.statusCode, 201);
    const clientId = shown(created.body, 'client-id');
    const firstSecret = shown(created.body, 'client-secret');
    const base = `/developers/clients/${clientId}`;

    await owner.get(base);
    assert.equal(
      (await owner.post(`${base}/display-name`, { display_name: 'Audited club' })).statusCode,
      303,
    );
    assert.equal((await owner.post(`${base}/display-name`, { display_name: '' })).statusCode, 303);
    assert.equal(
      (await owner.post(`${base}/scopes`, { scopes: ['events:read', 'orders:read'] })).statusCode,
      303,
    );
    assert.equal((await owner.post(`${base}/publishable-key`)).statusCode, 303);
    const origin = 'https://audited.example.org';
    assert.equal(
      (await owner.post(`${base}/domains/add`, { list: 'allowed_domains', allowed_domain: origin }))
        .statusCode,
      303,
    );
    // Adding it again changes nothing, so nothing is recorded.
    await owner.post(`${base}/domains/add`, { list: 'allowed_domains', allowed_domain: origin });
    assert.equal(
      (await owner.post(`${base}/domains/remove`, { list: 'allowed_domains', origin })).statusCode,
      303,
    );
    const rotated = await owner.post(`${base}/rotate-secret`);
    assert.equal(rotated.statusCode, 200);
    const secondSecret = shown(rotated.body, 'client-secret');
    await owner.get(`${base}/revoke`);
    assert.equal(locationOf(await owner.post(`${base}/revoke`)), `${base}?done=revoked`);
    await owner.post(`${base}/revoke`);

    const added = (await entries()).slice(0, (await entries()).length - start).reverse();
    assert.deepEqual(
      added.map((e) => e.action),
      [
        'client.created',
        'client.display_name_changed',
        'client.display_name_changed',
        'client.scopes_changed',
        'client.publishable_key_regenerated',
        'client.domain_added',
        'client.domain_removed',
        'client.secret_rotated',
        'client.revoked',
      ],
    );
    for (const entry of added) {
      assert.equal(entry.targetType, 'client');
      assert.equal(entry.targetId, clientId);
      assert.equal(entry.actorLabel, ownerEmail);
      assert.ok(entry.actorMemberId);
      assert.ok(entry.ip);
    }
    assert.deepEqual(added[0]!.details, {
      name: 'Audited shop',
      display_name: null,
      scopes: ['events:read'],
      allowed_domains: [],
      return_url_domains: [],
    });
    assert.deepEqual(added[1]!.details, { display_name: 'Audited club' });
    assert.deepEqual(added[2]!.details, { display_name: null });
    assert.deepEqual(added[3]!.details, { scopes: ['events:read', 'orders:read'] });
    assert.deepEqual(added[5]!.details, { list: 'allowed_domains', origin });
    assert.deepEqual(added[6]!.details, { list: 'allowed_domains', origin });
    const client = await findApiClient(db(), clientId);
    const written = JSON.stringify(added);
    for (const secret of [firstSecret, secondSecret, client!.publishableKey, client!.secretHash]) {
      assert.ok(!written.includes(secret), 'no secret or key in any entry');
    }

    const page = textOf((await owner.get('/audit-log')).body);
    // the client by its name, not its id
    assert.match(page, /revoked an API client: API client Audited shop/);
    assert.match(
      page,
      /changed an API client's display name: API client Audited shop Display name: Audited club/,
    );
    assert.match(page, /changed an API client's display name: API client Audited shop Display name: none/);
    assert.match(
      page,
      /changed an API client's scopes: API client Audited shop Scopes: events:read ?, orders:read/,
    );
    assert.match(
      page,
      /added a domain to an API client: API client Audited shop List: Allowed domains Origin: https:\/\/audited\.example\.org/,
    );
    assert.ok(page.indexOf('revoked an API client') < page.indexOf('created an API client'), 'newest first');
  });

  test('50 entries a page, newest first, with "Older entries" back to the first', async () => {
    const org = await makeOrganization(h);
    const agent = await signIn(h, await makeMember(h, org.id, 'owner'));
    const actor: Actor = { memberId: null, label: 'operator', ip: '192.0.2.7' };
    for (let i = 1; i <= 55; i++) {
      await recordAudit(
        db(),
        {
          organizationId: org.id,
          actor,
          action: 'member.role_changed',
          targetType: 'member',
          targetId: `mem_entry${String(i).padStart(3, '0')}`,
          details: { email: `m${i}@example.org`, from: 'viewer', to: 'admin' },
        },
        h.clock.now(),
      );
    }
    const first = await agent.get('/audit-log');
    assert.equal((first.body.match(/<code>mem_entry\d{3}<\/code>/g) ?? []).length, 50);
    assert.ok(first.body.indexOf('mem_entry055') < first.body.indexOf('mem_entry054'), 'newest first');
    assert.doesNotMatch(first.body, /mem_entry005</);
    assert.match(
      textOf(first.body),
      /changed a member's role: Member mem_entry055 Email: m55@example\.org From: Viewer To: Admin/,
    );
    assert.match(textOf(first.body), /operator .* 192\.0\.2\.7/);
    const older = /<a href="(\/audit-log\?before=\d+)">Older entries<\/a>/.exec(first.body)?.[1];
    assert.ok(older, 'an Older entries link');

    const second = await agent.get(older.replace('&amp;', '&'));
    assert.equal(second.statusCode, 200);
    const ids = second.body.match(/<code>mem_entry\d{3}<\/code>/g) ?? [];
    assert.deepEqual(
      ids,
      [5, 4, 3, 2, 1].map((n) => `<code>mem_entry00${n}</code>`),
    );
    assert.doesNotMatch(second.body, /Older entries/);
    assert.match(second.body, /<a href="\/audit-log">Newest entries<\/a>/);

    // Another organization's entries never show, and a bad ?before= is the newest page.
    assert.doesNotMatch((await owner.get('/audit-log')).body, /mem_entry/);
    const bad = await agent.get('/audit-log?before=abc');
    assert.equal((bad.body.match(/<code>mem_entry\d{3}<\/code>/g) ?? []).length, 50);
  });

  test('events, ticket types and orders by name; amounts in their currency; ranges and counts in words', async () => {
    const partner = await makePartner(h);
    const agent = await signIn(h, await makeMember(h, partner.organizationId, 'owner'));
    const event = await makeEvent(h, partner, { name: 'Masaka Marathon' });
    const [tenKm] = (await findEvent(db(), event.id))!.ticketTypes;
    const actor: Actor = { memberId: null, label: 'operator', ip: null };
    const record = (entry: Pick<AuditEntry, 'action' | 'targetType' | 'targetId' | 'details'>) =>
      recordAudit(db(), { organizationId: partner.organizationId, actor, ...entry }, h.clock.now());
    await record({
      action: 'ticket_type.created',
      targetType: 'ticket_type',
      targetId: tenKm!.id,
      details: { event_id: event.id, name: '10 km', price_minor: 50000, capacity: 1200 },
    });
    await record({
      action: 'event.bib_ranges_changed',
      targetType: 'event',
      targetId: event.id,
      details: { ranges: [{ ticket_type: '10 km', first: 1, last: 1200 }] },
    });
    await record({
      action: 'event.bibs_assigned',
      targetType: 'event',
      targetId: event.id,
      details: {
        assigned: 1150,
        ticket_types: [{ ticket_type: '10 km', assigned: 1150, without_number: 2 }],
      },
    });
    await record({
      action: 'event.updated',
      targetType: 'event',
      targetId: event.id,
      details: { changed: ['name', 'starts_at'] },
    });
    await record({
      action: 'order.confirmation_resent',
      targetType: 'order',
      targetId: 'ord_gone',
      details: {},
    });

    const page = textOf((await agent.get('/audit-log')).body);
    assert.match(
      page,
      /added a ticket type: Ticket type 10 km \(Masaka Marathon\) Name: 10 km Event: Masaka Marathon Price: UGX 50,000 Places: 1,200/,
    );
    assert.match(
      page,
      /changed an event's bib number ranges: Event Masaka Marathon Ranges: 10 km: 1 to 1200/,
    );
    assert.match(
      page,
      /assigned bib numbers: Event Masaka Marathon Numbers given: 1,150 Ticket types: 10 km: 1150 assigned, 2 without number/,
    );
    assert.match(page, /changed an event: Event Masaka Marathon Changed: name, starts at/);
    // an object that is gone keeps its id
    assert.match(page, /resent an order's confirmation email: Order ord_gone/);
    assert.doesNotMatch(page, /object Object|price_minor|evt_/);
  });
});
