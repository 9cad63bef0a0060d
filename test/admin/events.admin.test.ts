import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { bearer, getToken, startHarness, type Harness } from '../helpers/harness.ts';
import {
  admin,
  createClientFor,
  createEventFor,
  createOrg,
  dataOf,
  errorOf,
  eventBody,
  fieldsOf,
  partnerOf,
} from './admin-helpers.ts';

let h: Harness;
const DAY = 24 * 3600 * 1000;

before(async () => {
  h = await startHarness();
});
after(() => h.close());

async function partnerToken(orgId: string) {
  const client = await createClientFor(h, orgId, { scopes: ['events:read'] });
  return getToken(h, partnerOf(client));
}

describe('POST /admin/v1/organizations/{id}/events', () => {
  test('creates an event with its ticket types and questions; answers the admin detail', async () => {
    const org = await createOrg(h, { payments_enabled: true, support_email: 'org@example.org' });
    const salesEnd = new Date(h.clock.now().getTime() + 10 * DAY).toISOString();
    const body = eventBody(h, {
      name: 'Kampala City Half',
      handle: 'kampala-city-half',
      short_code: 'KCH26',
      description: 'Sunrise loop',
      cover: 'https://img.example.org/cover.jpg',
      venue: 'Kololo',
      event_type: 'road_race',
      organizer_name: 'Kampala Runners',
      waiver_required: true,
      waiver_version: '2026-01-15',
      waiver_text: 'I run at my own risk.',
      additional_questions: [
        { key: 'tshirt_size', label: 'T-shirt size', type: 'select', required: true, options: ['S', 'M'] },
        { key: 'club', label: 'Club', type: 'text' },
      ],
      ticket_types: [
        {
          name: '21 km',
          description: 'Half',
          price_minor: 50000,
          capacity: 500,
          distance_km: 21.1,
          min_age: 18,
          sales_start: new Date(h.clock.now().getTime() - DAY).toISOString(),
          sales_end: salesEnd,
        },
        { name: '5 km', price_minor: 0, capacity: 50 },
      ],
    });
    const res = await admin(h, { method: 'POST', url: `/organizations/${org.id}/events`, body });
    assert.equal(res.json().message, 'Event created');
    const event = dataOf(res, 201);
    assert.match(event.event_id, /^evt_/);
    assert.equal(event.organization_id, org.id);
    for (const field of ['name', 'handle', 'short_code', 'description', 'cover', 'venue', 'event_type']) {
      assert.equal(event[field], body[field as keyof typeof body], field);
    }
    assert.equal(event.status, 'open');
    assert.equal(event.visibility, 'public');
    assert.equal(event.starts_at, body.starts_at);
    assert.equal(event.reg_closes_at, body.reg_closes_at);
    assert.equal(event.timezone, 'Africa/Kampala');
    assert.equal(event.currency, 'UGX');
    assert.equal(event.payments_enabled, true);
    assert.equal(event.organizer_name, 'Kampala Runners');
    assert.equal(event.support_email, 'org@example.org', 'falls back to the organization');
    assert.deepEqual(event.payment_methods, ['momo', 'airtel']);
    assert.equal(event.waiver_required, true);
    assert.equal(event.waiver_version, '2026-01-15');
    assert.equal(event.waiver_text, 'I run at my own risk.');
    assert.deepEqual(event.additional_questions, [
      {
        key: 'tshirt_size',
        label: 'T-shirt size',
        type: 'select',
        required: true,
        options: ['S', 'M'],
        help: '',
      },
      { key: 'club', label: 'Club', type: 'text', required: false, options: [], help: '' },
    ]);
    assert.equal(event.ticket_types.length, 2);
    const [half, fun] = event.ticket_types;
    assert.match(half.ticket_type_id, /^tt_/);
    assert.equal(half.event_id, event.event_id);
    assert.equal(half.name, '21 km');
    assert.equal(half.description, 'Half');
    assert.equal(half.currency, 'UGX');
    assert.equal(half.price_minor, 50000);
    assert.equal(half.laces_fee_minor, 1750);
    assert.equal(half.total_minor, 51750);
    assert.equal(half.is_free, false);
    assert.equal(half.capacity, 500);
    assert.equal(half.remaining, 500);
    assert.equal(half.distance_km, 21.1);
    assert.equal(half.min_age, 18);
    assert.equal(half.sales_end, salesEnd);
    assert.equal(half.paid_count, 0);
    assert.equal(half.held_count, 0);
    assert.equal(fun.is_free, true);
    assert.equal(fun.total_minor, 0);
    // Sales window defaults to the registration window.
    assert.equal(fun.sales_start, body.reg_opens_at);
    assert.equal(fun.sales_end, body.reg_closes_at);
    assert.deepEqual(dataOf(await admin(h, { url: `/events/${event.event_id}` }), 200), event);
  });

  test('an open public event is on sale to the partner at once; a draft is not', async () => {
    const org = await createOrg(h);
    const token = await partnerToken(org.id);
    const open = await createEventFor(h, org.id);
    const draft = await createEventFor(h, org.id, { status: 'draft' });
    const list = dataOf(await h.service.api.inject({ url: '/v1/events', headers: bearer(token) }), 200);
    assert.deepEqual(
      list.events.map((e: { event_id: string }) => e.event_id),
      [open.event_id],
    );
    const detail = await h.service.api.inject({ url: `/v1/events/${open.event_id}`, headers: bearer(token) });
    assert.equal(dataOf(detail, 200).ticket_types.length, 2);
    assert.equal(
      'waiver_text' in dataOf(detail, 200),
      false,
      'admin-only fields stay out of the partner API',
    );
    const hidden = await h.service.api.inject({
      url: `/v1/events/${draft.event_id}`,
      headers: bearer(token),
    });
    errorOf(hidden, 404, 'not_found');
  });

  test('fills a handle from the name, a short code, draft status and public visibility', async () => {
    const org = await createOrg(h);
    const body = eventBody(h, { name: 'Entebbe Lakeside 10K!' });
    delete (body as Record<string, unknown>).handle;
    delete (body as Record<string, unknown>).status;
    delete (body as Record<string, unknown>).visibility;
    const event = dataOf(
      await admin(h, { method: 'POST', url: `/organizations/${org.id}/events`, body }),
      201,
    );
    assert.match(event.handle, /^entebbe-lakeside-10k-[a-z0-9]{4}$/);
    assert.match(event.short_code, /^[A-Z0-9]{6}$/);
    assert.equal(event.status, 'draft');
    assert.equal(event.visibility, 'public');
  });

  test('names every invalid field in one validation_failed answer', async () => {
    const org = await createOrg(h);
    const res = await admin(h, {
      method: 'POST',
      url: `/organizations/${org.id}/events`,
      body: eventBody(h, {
        handle: 'Bad Handle',
        currency: 'ugx',
        cover: 'not a url',
        support_email: 'nobody',
        status: 'live',
        visibility: 'secret',
        starts_at: 'next tuesday',
        ends_at: '2026-12-06T05:00:00', // no time zone
        additional_questions: [{ key: 'Size', label: 'Size', type: 'radio' }],
        ticket_types: [
          { name: '', price_minor: -1, capacity: 0, min_age: 121, distance_km: -2, extra: true },
        ],
        tickets: [],
      }),
    });
    const body = errorOf(res, 400, 'validation_failed');
    assert.deepEqual(fieldsOf(body), [
      'additional_questions[0].key',
      'additional_questions[0].type',
      'cover',
      'currency',
      'ends_at',
      'handle',
      'starts_at',
      'status',
      'support_email',
      'ticket_types[0].capacity',
      'ticket_types[0].distance_km',
      'ticket_types[0].extra',
      'ticket_types[0].min_age',
      'ticket_types[0].name',
      'ticket_types[0].price_minor',
      'tickets',
      'visibility',
    ]);
    const byField = Object.fromEntries(body.errors!.map((e) => [e.field, e.message]));
    assert.equal(byField.status, 'must be one of: draft, open, closed, cancelled');
    assert.equal(byField.visibility, 'must be one of: public, unlisted, private');
    assert.match(byField.currency!, /ISO 4217/);
    assert.match(byField.handle!, /lower-case/);
    assert.match(byField.starts_at!, /ISO 8601/);
    assert.equal(byField['ticket_types[0].capacity'], 'must be >= 1');
    assert.equal(byField.tickets, 'is not a recognised field');
    assert.equal(body.message, `${body.errors![0]!.field}: ${body.errors![0]!.message}`);
  });

  test('lists the required fields that are missing', async () => {
    const org = await createOrg(h);
    const res = await admin(h, {
      method: 'POST',
      url: `/organizations/${org.id}/events`,
      body: { name: 'x' },
    });
    const body = errorOf(res, 400, 'validation_failed');
    assert.deepEqual(fieldsOf(body), [
      'currency',
      'ends_at',
      'reg_closes_at',
      'reg_opens_at',
      'starts_at',
      'timezone',
    ]);
    assert.ok(body.errors!.every((e) => e.message === 'is required'));
  });

  test('returns every cross-field rule that fails, together', async () => {
    const org = await createOrg(h);
    const base = eventBody(h);
    const res = await admin(h, {
      method: 'POST',
      url: `/organizations/${org.id}/events`,
      body: {
        ...base,
        ends_at: base.starts_at,
        reg_closes_at: base.reg_opens_at,
        timezone: 'Mars/Olympus_Mons',
        waiver_required: true,
        additional_questions: [
          { key: 'size', label: 'Size', type: 'select', options: [] },
          { key: 'size', label: 'Size again', type: 'text' },
        ],
        ticket_types: [
          {
            name: 'A',
            price_minor: 1,
            capacity: 1,
            sales_start: base.starts_at,
            sales_end: base.reg_opens_at,
          },
          { name: 'B', price_minor: 1, capacity: 1, sales_end: '2000-01-01T00:00:00.000Z' },
        ],
      },
    });
    const body = errorOf(res, 400, 'validation_failed');
    assert.deepEqual(body.errors, [
      { field: 'ends_at', message: 'must be after starts_at' },
      { field: 'reg_closes_at', message: 'must be after reg_opens_at' },
      { field: 'timezone', message: 'must be an IANA time zone name such as Africa/Kampala' },
      { field: 'waiver_version', message: 'is required when waiver_required is true' },
      { field: 'additional_questions[0].options', message: 'must list at least one option for select' },
      { field: 'additional_questions[1].key', message: 'is used twice' },
      { field: 'ticket_types[0].sales_end', message: 'must be after sales_start' },
      { field: 'ticket_types[1].sales_end', message: `must be after sales_start (${base.reg_opens_at})` },
    ]);
    const list = dataOf(await admin(h, { url: `/organizations/${org.id}/events` }), 200);
    assert.equal(list.events.length, 0, 'nothing was created');
  });

  test('refuses a date-time that passes the format but is no real instant', async () => {
    const org = await createOrg(h);
    const res = await admin(h, {
      method: 'POST',
      url: `/organizations/${org.id}/events`,
      body: eventBody(h, { starts_at: '2026-12-31T23:59:60Z' }),
    });
    const body = errorOf(res, 400, 'validation_failed');
    assert.deepEqual(body.errors, [{ field: 'starts_at', message: 'is not a real point in time' }]);
  });

  test('refuses a date in the year 0, which PostgreSQL cannot store, on create, patch and ticket types', async () => {
    const org = await createOrg(h);
    const year0 = '0000-01-01T00:00:00Z';
    const created = await admin(h, {
      method: 'POST',
      url: `/organizations/${org.id}/events`,
      body: eventBody(h, { reg_opens_at: year0 }),
    });
    assert.deepEqual(errorOf(created, 400, 'validation_failed').errors, [
      { field: 'reg_opens_at', message: 'must be within the years 1 to 9999' },
    ]);
    const event = await createEventFor(h, org.id);
    const patched = await admin(h, {
      method: 'PATCH',
      url: `/events/${event.event_id}`,
      body: { reg_opens_at: year0 },
    });
    errorOf(patched, 400, 'validation_failed');
    const added = await admin(h, {
      method: 'POST',
      url: `/events/${event.event_id}/ticket-types`,
      body: { name: 'Kids', price_minor: 0, capacity: 1, sales_start: year0 },
    });
    errorOf(added, 400, 'validation_failed');
  });

  test('refuses a handle already used in the organization with 409 conflict; another organization may use it', async () => {
    const org = await createOrg(h);
    await createEventFor(h, org.id, { handle: 'city-run' });
    const res = await admin(h, {
      method: 'POST',
      url: `/organizations/${org.id}/events`,
      body: eventBody(h, { handle: 'city-run' }),
    });
    const body = errorOf(res, 409, 'conflict');
    assert.match(body.message, /handle "city-run" is already used/);
    const list = dataOf(await admin(h, { url: `/organizations/${org.id}/events` }), 200);
    assert.equal(list.events.length, 1, 'the refused event and its ticket types were not kept');
    const other = await createOrg(h);
    const elsewhere = await createEventFor(h, other.id, { handle: 'city-run' });
    assert.equal(elsewhere.handle, 'city-run');
  });

  test('inserts the event and its ticket types in one transaction', async () => {
    const org = await createOrg(h);
    // A trigger makes the second ticket type's insert fail after the event row went in.
    await h.service.ctx.database.rows(sql`
      CREATE OR REPLACE FUNCTION test_refuse_ticket_type() RETURNS trigger AS $$
      BEGIN
        IF NEW.name = 'refuse me' THEN RAISE EXCEPTION 'refused by test trigger'; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await h.service.ctx.database.rows(sql`
      CREATE TRIGGER test_refuse_ticket_type BEFORE INSERT ON ticket_types
      FOR EACH ROW EXECUTE FUNCTION test_refuse_ticket_type()`);
    try {
      const res = await admin(h, {
        method: 'POST',
        url: `/organizations/${org.id}/events`,
        body: eventBody(h, {
          ticket_types: [
            { name: 'fine', price_minor: 0, capacity: 1 },
            { name: 'refuse me', price_minor: 0, capacity: 1 },
          ],
        }),
      });
      const body = errorOf(res, 500, 'internal_error');
      assert.equal(body.message.includes('refused by test trigger'), false, 'internals stay in the log');
    } finally {
      await h.service.ctx.database.rows(sql`DROP TRIGGER test_refuse_ticket_type ON ticket_types`);
    }
    const list = dataOf(await admin(h, { url: `/organizations/${org.id}/events` }), 200);
    assert.deepEqual(list.events, [], 'the event row was rolled back with its ticket types');
  });

  test('answers not_found for an unknown organization', async () => {
    const res = await admin(h, {
      method: 'POST',
      url: '/organizations/org_doesnotexist0000000000000/events',
      body: eventBody(h),
    });
    assert.equal(errorOf(res, 404, 'not_found').message, 'No such organization.');
  });
});

describe('GET /admin/v1/organizations/{id}/events and /admin/v1/events/{id}', () => {
  test("lists the organization's events of every status and visibility, soonest first", async () => {
    const org = await createOrg(h);
    const other = await createOrg(h);
    const now = h.clock.now().getTime();
    const at = (days: number) => ({
      starts_at: new Date(now + days * DAY).toISOString(),
      ends_at: new Date(now + days * DAY + 3600_000).toISOString(),
    });
    const later = await createEventFor(h, org.id, { ...at(40), status: 'cancelled' });
    const sooner = await createEventFor(h, org.id, { ...at(35), status: 'draft', visibility: 'private' });
    const closed = await createEventFor(h, org.id, { ...at(38), status: 'closed', visibility: 'unlisted' });
    await createEventFor(h, other.id);
    const res = await admin(h, { url: `/organizations/${org.id}/events` });
    assert.equal(res.json().message, 'Events retrieved');
    const events = dataOf(res, 200).events;
    assert.deepEqual(
      events.map((e: { event_id: string }) => e.event_id),
      [sooner.event_id, closed.event_id, later.event_id],
    );
    assert.deepEqual(
      events.map((e: { status: string }) => e.status),
      ['draft', 'closed', 'cancelled'],
    );
    assert.equal(events[0].organization_id, org.id);
    assert.equal(events[0].visibility, 'private');
    assert.equal('ticket_types' in events[0], false);
  });

  test('answers not_found for an unknown organization or event', async () => {
    errorOf(await admin(h, { url: '/organizations/org_doesnotexist0000000000000/events' }), 404, 'not_found');
    const body = errorOf(await admin(h, { url: '/events/evt_doesnotexist0000000000000' }), 404, 'not_found');
    assert.equal(body.message, 'No such event.');
    errorOf(await admin(h, { url: '/events/tt_3kTzQ8bN1cV7xY2wR5mP0aLd' }), 404, 'not_found');
  });
});

describe('PATCH /admin/v1/events/{id}', () => {
  test('changes any event field and keeps the rest', async () => {
    const org = await createOrg(h);
    const event = await createEventFor(h, org.id, { status: 'draft' });
    h.clock.advance(1000);
    const res = await admin(h, {
      method: 'PATCH',
      url: `/events/${event.event_id}`,
      body: {
        status: 'open',
        visibility: 'unlisted',
        name: 'Renamed Run',
        venue: 'Kololo',
        support_email: 'race@example.org',
        waiver_required: true,
        waiver_version: 'v2',
        waiver_text: 'At my own risk.',
        additional_questions: [{ key: 'club', label: 'Club', type: 'text' }],
      },
    });
    assert.equal(res.json().message, 'Event updated');
    const updated = dataOf(res, 200);
    assert.equal(updated.status, 'open');
    assert.equal(updated.visibility, 'unlisted');
    assert.equal(updated.name, 'Renamed Run');
    assert.equal(updated.venue, 'Kololo');
    assert.equal(updated.support_email, 'race@example.org');
    assert.equal(updated.waiver_text, 'At my own risk.');
    assert.deepEqual(updated.additional_questions, [
      { key: 'club', label: 'Club', type: 'text', required: false, options: [], help: '' },
    ]);
    assert.equal(updated.handle, event.handle);
    assert.equal(updated.starts_at, event.starts_at);
    assert.deepEqual(updated.ticket_types, event.ticket_types);
    assert.ok(Date.parse(updated.updated_at) > Date.parse(event.updated_at));
    assert.deepEqual(dataOf(await admin(h, { url: `/events/${event.event_id}` }), 200), updated);
  });

  test('sets and clears the transfer deadline', async () => {
    const org = await createOrg(h);
    const event = await createEventFor(h, org.id);
    assert.equal(event.transfer_deadline, null);
    const deadline = '2030-01-02T03:04:00.000Z';
    const set = dataOf(
      await admin(h, {
        method: 'PATCH',
        url: `/events/${event.event_id}`,
        body: { transfer_deadline: deadline },
      }),
      200,
    );
    assert.equal(set.transfer_deadline, deadline);
    const cleared = dataOf(
      await admin(h, {
        method: 'PATCH',
        url: `/events/${event.event_id}`,
        body: { transfer_deadline: null },
      }),
      200,
    );
    assert.equal(cleared.transfer_deadline, null);
    errorOf(
      await admin(h, {
        method: 'PATCH',
        url: `/events/${event.event_id}`,
        body: { transfer_deadline: 'soon' },
      }),
      400,
      'validation_failed',
    );
  });

  test('switches donations off and on; a non-boolean is refused', async () => {
    const org = await createOrg(h);
    const event = await createEventFor(h, org.id);
    assert.equal(event.donations_enabled, true);
    const patch = (body: unknown) => admin(h, { method: 'PATCH', url: `/events/${event.event_id}`, body });
    assert.equal(dataOf(await patch({ donations_enabled: false }), 200).donations_enabled, false);
    errorOf(await patch({ donations_enabled: 'no' }), 400, 'validation_failed');
    assert.equal(dataOf(await admin(h, { url: `/events/${event.event_id}` }), 200).donations_enabled, false);
    assert.equal(dataOf(await patch({ donations_enabled: true }), 200).donations_enabled, true);
  });

  test('asks for the phone on free registrations when told; off by default; a non-boolean is refused', async () => {
    const org = await createOrg(h);
    const event = await createEventFor(h, org.id);
    assert.equal(event.phone_required, false);
    const patch = (body: unknown) => admin(h, { method: 'PATCH', url: `/events/${event.event_id}`, body });
    assert.equal(dataOf(await patch({ phone_required: true }), 200).phone_required, true);
    errorOf(await patch({ phone_required: 'yes' }), 400, 'validation_failed');
    assert.equal(dataOf(await admin(h, { url: `/events/${event.event_id}` }), 200).phone_required, true);
    assert.equal(dataOf(await patch({ phone_required: false }), 200).phone_required, false);
  });

  test('takes effect for partners on the next request (private hides the event)', async () => {
    const org = await createOrg(h);
    const token = await partnerToken(org.id);
    const event = await createEventFor(h, org.id);
    const read = () => h.service.api.inject({ url: `/v1/events/${event.event_id}`, headers: bearer(token) });
    assert.equal((await read()).statusCode, 200);
    dataOf(
      await admin(h, { method: 'PATCH', url: `/events/${event.event_id}`, body: { visibility: 'private' } }),
      200,
    );
    errorOf(await read(), 404, 'not_found');
  });

  test('checks the cross-field rules against the merged event', async () => {
    const org = await createOrg(h);
    const event = await createEventFor(h, org.id);
    const afterEnd = new Date(Date.parse(event.ends_at) + DAY).toISOString();
    const res = await admin(h, {
      method: 'PATCH',
      url: `/events/${event.event_id}`,
      body: { starts_at: afterEnd, reg_opens_at: event.reg_closes_at, waiver_required: true },
    });
    const body = errorOf(res, 400, 'validation_failed');
    assert.deepEqual(body.errors, [
      { field: 'ends_at', message: 'must be after starts_at' },
      { field: 'reg_closes_at', message: 'must be after reg_opens_at' },
      { field: 'waiver_version', message: 'is required when waiver_required is true' },
    ]);
    // Moving both ends together is fine.
    const ok = await admin(h, {
      method: 'PATCH',
      url: `/events/${event.event_id}`,
      body: { starts_at: afterEnd, ends_at: new Date(Date.parse(afterEnd) + 3600_000).toISOString() },
    });
    assert.equal(dataOf(ok, 200).starts_at, afterEnd);
  });

  test('validates fields as on creation and refuses ticket_types (they have their own routes)', async () => {
    const org = await createOrg(h);
    const event = await createEventFor(h, org.id);
    const res = await admin(h, {
      method: 'PATCH',
      url: `/events/${event.event_id}`,
      body: { status: 'paused', currency: 'USD1', handle: '-x-', ticket_types: [], timezone: '' },
    });
    const body = errorOf(res, 400, 'validation_failed');
    assert.deepEqual(fieldsOf(body), ['currency', 'handle', 'status', 'ticket_types', 'timezone']);
    assert.deepEqual(dataOf(await admin(h, { url: `/events/${event.event_id}` }), 200), event);
  });

  test("refuses another event's handle with 409 conflict", async () => {
    const org = await createOrg(h);
    const a = await createEventFor(h, org.id);
    const b = await createEventFor(h, org.id);
    const res = await admin(h, { method: 'PATCH', url: `/events/${b.event_id}`, body: { handle: a.handle } });
    errorOf(res, 409, 'conflict');
    const same = await admin(h, {
      method: 'PATCH',
      url: `/events/${a.event_id}`,
      body: { handle: a.handle },
    });
    assert.equal(dataOf(same, 200).handle, a.handle);
  });

  test('answers not_found for an unknown event', async () => {
    const res = await admin(h, {
      method: 'PATCH',
      url: '/events/evt_doesnotexist0000000000000',
      body: { status: 'open' },
    });
    errorOf(res, 404, 'not_found');
  });
});

describe('POST /admin/v1/events/{id}/ticket-types', () => {
  test('adds a ticket type at the end, priced in the event currency', async () => {
    const org = await createOrg(h);
    const event = await createEventFor(h, org.id);
    const res = await admin(h, {
      method: 'POST',
      url: `/events/${event.event_id}/ticket-types`,
      body: { name: 'Relay', description: 'Teams of 4', price_minor: 80000, capacity: 20, distance_km: 42.2 },
    });
    assert.equal(res.json().message, 'Ticket type created');
    const tt = dataOf(res, 201);
    assert.match(tt.ticket_type_id, /^tt_/);
    assert.equal(tt.event_id, event.event_id);
    assert.equal(tt.currency, 'UGX');
    assert.equal(tt.price_minor, 80000);
    assert.equal(tt.total_minor, 82800);
    assert.equal(tt.remaining, 20);
    assert.equal(tt.sales_start, event.reg_opens_at);
    const detail = dataOf(await admin(h, { url: `/events/${event.event_id}` }), 200);
    assert.deepEqual(
      detail.ticket_types.map((t: { name: string }) => t.name),
      ['10 km', '5 km', 'Relay'],
    );
    assert.deepEqual(detail.ticket_types[2], tt);
  });

  test('validates the ticket type, its sales window included', async () => {
    const org = await createOrg(h);
    const event = await createEventFor(h, org.id);
    const bad = await admin(h, {
      method: 'POST',
      url: `/events/${event.event_id}/ticket-types`,
      body: { price_minor: 1.5, capacity: '10', min_age: -1 },
    });
    assert.deepEqual(fieldsOf(errorOf(bad, 400, 'validation_failed')), [
      'capacity',
      'min_age',
      'name',
      'price_minor',
    ]);
    const window = await admin(h, {
      method: 'POST',
      url: `/events/${event.event_id}/ticket-types`,
      body: { name: 'Late', price_minor: 0, capacity: 1, sales_start: event.reg_closes_at },
    });
    assert.deepEqual(errorOf(window, 400, 'validation_failed').errors, [
      { field: 'sales_start', message: `must be before sales_end (${event.reg_closes_at})` },
    ]);
  });

  test('takes a price up to the ceiling of 100,000,000 minor units and refuses one above it, saying so', async () => {
    const org = await createOrg(h);
    const event = await createEventFor(h, org.id);
    const top = await admin(h, {
      method: 'POST',
      url: `/events/${event.event_id}/ticket-types`,
      body: { name: 'Patron', price_minor: 100_000_000, capacity: 1 },
    });
    assert.equal(dataOf(top, 201).total_minor, 103_500_000);
    for (const price_minor of [100_000_001, 2_147_483_647]) {
      const res = await admin(h, {
        method: 'POST',
        url: `/events/${event.event_id}/ticket-types`,
        body: { name: 'Too dear', price_minor, capacity: 1 },
      });
      const errors = errorOf(res, 400, 'validation_failed').errors!;
      assert.deepEqual(
        errors.map((e) => e.field),
        ['price_minor'],
      );
      assert.match(errors[0]!.message, /100000000/);
    }
  });

  test('answers not_found for an unknown event', async () => {
    const res = await admin(h, {
      method: 'POST',
      url: '/events/evt_doesnotexist0000000000000/ticket-types',
      body: { name: 'x', price_minor: 0, capacity: 1 },
    });
    errorOf(res, 404, 'not_found');
  });
});

describe('PATCH /admin/v1/ticket-types/{id}', () => {
  test('updates a ticket type', async () => {
    const org = await createOrg(h);
    const event = await createEventFor(h, org.id);
    const tt = event.ticket_types[0];
    const res = await admin(h, {
      method: 'PATCH',
      url: `/ticket-types/${tt.ticket_type_id}`,
      body: { name: '10 km elite', price_minor: 0, capacity: 10, min_age: 16 },
    });
    assert.equal(res.json().message, 'Ticket type updated');
    const updated = dataOf(res, 200);
    assert.equal(updated.name, '10 km elite');
    assert.equal(updated.is_free, true);
    assert.equal(updated.laces_fee_minor, 0);
    assert.equal(updated.capacity, 10);
    assert.equal(updated.min_age, 16);
    assert.equal(updated.distance_km, tt.distance_km);
    const detail = dataOf(await admin(h, { url: `/events/${event.event_id}` }), 200);
    assert.deepEqual(detail.ticket_types[0], updated);
  });

  test('refuses a capacity below what is paid or held with 409 conflict, and changes nothing', async () => {
    const org = await createOrg(h);
    const event = await createEventFor(h, org.id);
    const tt = event.ticket_types[0];
    await h.service.ctx.database.rows(
      sql`UPDATE ticket_types SET paid_count = 4, held_count = 2 WHERE id = ${tt.ticket_type_id}`,
    );
    const res = await admin(h, {
      method: 'PATCH',
      url: `/ticket-types/${tt.ticket_type_id}`,
      body: { capacity: 5, name: 'Changed' },
    });
    const body = errorOf(res, 409, 'conflict');
    assert.match(body.message, /6 tickets already paid or held/);
    const detail = dataOf(await admin(h, { url: `/events/${event.event_id}` }), 200);
    assert.equal(detail.ticket_types[0].name, tt.name);
    assert.equal(detail.ticket_types[0].capacity, 100);
    assert.equal(detail.ticket_types[0].paid_count, 4);
    assert.equal(detail.ticket_types[0].held_count, 2);
    assert.equal(detail.ticket_types[0].remaining, 94);
    const exact = await admin(h, {
      method: 'PATCH',
      url: `/ticket-types/${tt.ticket_type_id}`,
      body: { capacity: 6 },
    });
    assert.equal(dataOf(exact, 200).remaining, 0);
  });

  test('validates fields and the merged sales window', async () => {
    const org = await createOrg(h);
    const event = await createEventFor(h, org.id);
    const tt = event.ticket_types[0];
    const bad = await admin(h, {
      method: 'PATCH',
      url: `/ticket-types/${tt.ticket_type_id}`,
      body: { capacity: 0, price_minor: 3_000_000_000, currency: 'USD' },
    });
    assert.deepEqual(fieldsOf(errorOf(bad, 400, 'validation_failed')), [
      'capacity',
      'currency',
      'price_minor',
    ]);
    const window = await admin(h, {
      method: 'PATCH',
      url: `/ticket-types/${tt.ticket_type_id}`,
      body: { sales_end: tt.sales_start },
    });
    assert.deepEqual(errorOf(window, 400, 'validation_failed').errors, [
      { field: 'sales_end', message: `must be after sales_start (${tt.sales_start})` },
    ]);
  });

  test('answers not_found for an unknown ticket type', async () => {
    const res = await admin(h, {
      method: 'PATCH',
      url: '/ticket-types/tt_doesnotexist0000000000000',
      body: { capacity: 1 },
    });
    assert.equal(errorOf(res, 404, 'not_found').message, 'No such ticket type.');
  });
});
