// Each event write is one action (src/events/actions/) that the admin API and the organizer app
// both call: from either, the write is audited with its actor and marks the organization's catalog
// changed, so a partner reads it at once. Publishing, closing and cancelling are the app's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listAuditEvents, type AuditEventRow } from '../../src/audit/audit-log.ts';
import { findEvent } from '../../src/events/events.ts';
import { findOrganization } from '../../src/organizations/organizations.ts';
import { admin, dataOf, eventBody } from '../admin/admin-helpers.ts';
import { locationOf, makeMember, signIn, type Agent } from '../app/app-helpers.ts';
import {
  bearer,
  getToken,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';

let h: Harness;
let partner: TestPartner;
let owner: Agent;
let ownerEmail: string;

before(async () => {
  h = await startHarness();
  partner = await makePartner(h);
  const member = await makeMember(h, partner.organizationId, 'owner');
  ownerEmail = member.email;
  owner = await signIn(h, member);
});
after(() => h.close());

const db = () => h.service.ctx.database.db;
const catalogVersion = async () => (await findOrganization(db(), partner.organizationId))!.catalogVersion;

/** The newest audit entry of the organization. */
async function lastEntry(): Promise<AuditEventRow> {
  const [entry] = (await listAuditEvents(db(), partner.organizationId, { limit: 1 })).rows;
  assert.ok(entry, 'an audit entry');
  return entry;
}

/** Runs `write` and checks that it left one audit entry of `action` by `actor` and bumped the catalog. */
async function expectAction<T>(
  action: string,
  actor: 'operator' | 'member',
  write: () => Promise<T>,
): Promise<{ result: T; entry: AuditEventRow }> {
  const version = await catalogVersion();
  const result = await write();
  const entry = await lastEntry();
  assert.equal(entry.action, action);
  if (actor === 'operator') {
    assert.equal(entry.actorLabel, 'operator');
    assert.equal(entry.actorMemberId, null);
  } else {
    assert.equal(entry.actorLabel, ownerEmail);
    assert.ok(entry.actorMemberId);
  }
  assert.ok((await catalogVersion()) > version, `${action} marks the catalog changed`);
  return { result, entry };
}

const APP_EVENT = {
  name: 'Mbale Hill Run',
  timezone: 'Africa/Kampala',
  starts_at: '2027-05-02T06:00',
  ends_at: '2027-05-02T12:00',
  reg_opens_at: '2026-11-01T08:00',
  reg_closes_at: '2027-04-30T23:00',
  currency: 'UGX',
  visibility: 'public',
};

describe('event actions from the admin API', () => {
  test('create, update, add and change a ticket type: each audited as the operator', async () => {
    const created = await expectAction('event.created', 'operator', async () =>
      dataOf(
        await admin(h, {
          method: 'POST',
          url: `/organizations/${partner.organizationId}/events`,
          body: eventBody(h),
        }),
        201,
      ),
    );
    const eventId = created.result.event_id as string;
    assert.equal(created.entry.targetId, eventId);

    const updated = await expectAction('event.updated', 'operator', async () =>
      dataOf(await admin(h, { method: 'PATCH', url: `/events/${eventId}`, body: { venue: 'Kololo' } }), 200),
    );
    assert.deepEqual((updated.entry.details as { changed: string[] }).changed, ['venue']);

    const added = await expectAction('ticket_type.created', 'operator', async () =>
      dataOf(
        await admin(h, {
          method: 'POST',
          url: `/events/${eventId}/ticket-types`,
          body: { name: 'Kids 2 km', price_minor: 5000, capacity: 40 },
        }),
        201,
      ),
    );
    const ticketTypeId = added.result.ticket_type_id as string;
    assert.equal((added.entry.details as { price_minor: number }).price_minor, 5000);

    // A partner reads the new price as soon as the change is answered.
    const token = await getToken(h, partner);
    const priceSeen = async () => {
      const res = await h.service.api.inject({ url: `/v1/events/${eventId}`, headers: bearer(token) });
      const data = res.json() as {
        data: { ticket_types: Array<{ ticket_type_id: string; price_minor: number }> };
      };
      return data.data.ticket_types.find((t) => t.ticket_type_id === ticketTypeId)?.price_minor;
    };
    assert.equal(await priceSeen(), 5000);
    await expectAction('ticket_type.updated', 'operator', async () =>
      dataOf(
        await admin(h, {
          method: 'PATCH',
          url: `/ticket-types/${ticketTypeId}`,
          body: { price_minor: 7000 },
        }),
        200,
      ),
    );
    assert.equal(await priceSeen(), 7000);
  });

  test('a refused write changes nothing and records nothing', async () => {
    const eventId = dataOf(
      await admin(h, {
        method: 'POST',
        url: `/organizations/${partner.organizationId}/events`,
        body: eventBody(h),
      }),
      201,
    ).event_id as string;
    const before = await lastEntry();
    const version = await catalogVersion();
    const start = (await findEvent(db(), eventId))!.event.startsAt.toISOString();
    const res = await admin(h, { method: 'PATCH', url: `/events/${eventId}`, body: { ends_at: start } });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal((await lastEntry()).id, before.id);
    assert.equal(await catalogVersion(), version);
  });
});

describe('event actions from the organizer app', () => {
  test('create, update, add and change a ticket type: each audited as the member', async () => {
    await owner.get('/events/new');
    const created = await expectAction('event.created', 'member', () => owner.post('/events', APP_EVENT));
    const eventId = /^\/events\/(evt_\w+)/.exec(locationOf(created.result))![1]!;

    await owner.get(`/events/${eventId}/edit`);
    const updated = await expectAction('event.updated', 'member', () =>
      owner.post(`/events/${eventId}`, { ...APP_EVENT, venue: 'Mbale Municipal Grounds' }),
    );
    assert.equal(updated.result.statusCode, 303);
    assert.deepEqual((updated.entry.details as { changed: string[] }).changed, ['venue']);

    await owner.get(`/events/${eventId}`);
    const added = await expectAction('ticket_type.created', 'member', () =>
      owner.post(`/events/${eventId}/ticket-types`, {
        new_name: '10 km',
        new_price: '40000',
        new_capacity: '200',
      }),
    );
    assert.equal(added.result.statusCode, 303);
    const ticketType = (await findEvent(db(), eventId))!.ticketTypes[0]!;

    await owner.get(`/events/${eventId}`);
    const p = `${ticketType.id}_`;
    const changed = await expectAction('ticket_type.updated', 'member', () =>
      owner.post(`/events/${eventId}/ticket-types/${ticketType.id}`, {
        [`${p}name`]: '10 km',
        [`${p}price`]: '45000',
        [`${p}capacity`]: '150',
      }),
    );
    assert.equal(changed.result.statusCode, 303);
    assert.equal((changed.entry.details as { capacity: number }).capacity, 150);

    await owner.get(`/events/${eventId}/publish`);
    const published = await expectAction('event.status_changed', 'member', () =>
      owner.post(`/events/${eventId}/publish`),
    );
    assert.equal(published.result.statusCode, 303);
    assert.deepEqual(published.entry.details, { from: 'draft', to: 'open' });
    // Publishing again is refused by the action: nothing written, nothing recorded.
    const again = await owner.post(`/events/${eventId}/publish`);
    assert.equal(again.statusCode, 409);
    assert.equal((await lastEntry()).id, published.entry.id);
  });
});
