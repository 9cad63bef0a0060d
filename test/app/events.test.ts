// The event pages: creating an event (dates read in its time zone), editing it, each validation
// error next to its field with nothing written, ticket types, publishing/closing/cancelling after
// a confirmation (a refused transition changes nothing), a viewer's 403, another organization's 404.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventCreateIn, QuestionIn, TicketTypeIn } from '../../src/admin/events/event-admin.schema.ts';
import { limitOf } from '../../src/app/form-body.ts';
import { listAuditEvents } from '../../src/audit/audit-log.ts';
import { eq } from 'drizzle-orm';
import { findEvent, listEventsOfOrganization } from '../../src/events/events.ts';
import { UNLIMITED_CAPACITY } from '../../src/events/index.ts';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { makeEvent, makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { locationOf, makeMember, signIn, textOf } from './app-helpers.ts';

let h: Harness;
let organizationId: string;
let owner: Awaited<ReturnType<typeof signIn>>;
let viewer: Awaited<ReturnType<typeof signIn>>;

before(async () => {
  h = await startHarness();
  organizationId = (await makePartner(h)).organizationId;
  owner = await signIn(h, await makeMember(h, organizationId, 'owner'));
  viewer = await signIn(h, await makeMember(h, organizationId, 'viewer'));
});
after(() => h.close());

const db = () => h.service.ctx.database.db;

const EVENT_FIELDS = {
  name: 'Jinja Nile Half Marathon',
  description: 'Along the Nile.',
  venue: 'Jinja Source of the Nile',
  cover: 'https://images.example.org/nile.jpg',
  visibility: 'unlisted',
  timezone: 'Africa/Kampala',
  starts_at: '2027-03-14T06:30',
  ends_at: '2027-03-14T13:00',
  reg_opens_at: '2026-12-01T08:00',
  reg_closes_at: '2027-03-10T23:59',
  currency: 'UGX',
  organizer_name: 'Nile Runners',
  support_email: 'help@nile.example.org',
  waiver_required: 'yes',
  waiver_version: '2027-1',
  waiver_text: 'I run at my own risk.',
  q0_label: 'T-shirt size',
  q0_key: 'tshirt',
  q0_type: 'select',
  q0_options: 'S, M, L',
  q0_required: 'yes',
};

async function auditActions(): Promise<string[]> {
  return (await listAuditEvents(db(), organizationId, { limit: 50 })).rows.map((r) => r.action);
}

describe('event pages', () => {
  test('create: every field stored, dates in the time zone, audited; then shown on its page', async () => {
    await owner.get('/events/new');
    const res = await owner.post('/events', EVENT_FIELDS);
    assert.equal(res.statusCode, 303, res.body.slice(0, 500));
    const id = /^\/events\/(evt_\w+)\?done=created$/.exec(locationOf(res))?.[1];
    assert.ok(id);
    const { event } = (await findEvent(db(), id))!;
    assert.equal(event.organizationId, organizationId);
    assert.equal(event.status, 'draft');
    assert.equal(event.venue, 'Jinja Source of the Nile');
    assert.equal(event.visibility, 'unlisted');
    // 06:30 in Kampala (UTC+3) is 03:30 UTC
    assert.equal(event.startsAt.toISOString(), '2027-03-14T03:30:00.000Z');
    assert.equal(event.regClosesAt.toISOString(), '2027-03-10T20:59:00.000Z');
    assert.equal(event.waiverRequired, true);
    assert.equal(event.supportEmail, 'help@nile.example.org');
    assert.deepEqual(event.additionalQuestions, [
      {
        key: 'tshirt',
        label: 'T-shirt size',
        type: 'select',
        required: true,
        options: ['S', 'M', 'L'],
        help: '',
      },
    ]);
    assert.ok((await auditActions()).includes('event.created'));
    const shown = await owner.get(locationOf(res));
    assert.equal(shown.statusCode, 200);
    assert.match(textOf(shown.body), /The event was created as a draft/);
    const edit = await owner.get(`/events/${id}/edit`);
    assert.match(edit.body, /id="f-starts_at"[^>]*value="2027-03-14T06:30"/);
    const list = await owner.get('/events');
    assert.match(list.body, new RegExp(`href="/events/${id}"`));
    assert.match(list.body, /href="\/events\/new"/);
  });

  test("the transfer deadline: optional, read in the event's time zone, cleared when emptied", async () => {
    await owner.get('/events/new');
    const created = await owner.post('/events', EVENT_FIELDS);
    const id = /^\/events\/(evt_\w+)\?done=created$/.exec(locationOf(created))?.[1];
    assert.ok(id);
    assert.equal((await findEvent(db(), id))!.event.transferDeadline, null);
    await owner.get(`/events/${id}/edit`);
    const wrong = await owner.post(`/events/${id}`, { ...EVENT_FIELDS, transfer_deadline: 'next week' });
    assert.equal(wrong.statusCode, 422);
    assert.match(
      wrong.body,
      /id="f-transfer_deadline-error">Enter when transfers close as a date and a time/,
    );
    assert.equal((await findEvent(db(), id))!.event.transferDeadline, null);
    const set = await owner.post(`/events/${id}`, { ...EVENT_FIELDS, transfer_deadline: '2027-03-07T18:00' });
    assert.equal(set.statusCode, 303, set.body.slice(0, 300));
    // 18:00 in Kampala (UTC+3) is 15:00 UTC
    assert.equal(
      (await findEvent(db(), id))!.event.transferDeadline?.toISOString(),
      '2027-03-07T15:00:00.000Z',
    );
    const edit = await owner.get(`/events/${id}/edit`);
    assert.match(edit.body, /id="f-transfer_deadline"[^>]*value="2027-03-07T18:00"/);
    await owner.post(`/events/${id}`, { ...EVENT_FIELDS, transfer_deadline: '' });
    assert.equal((await findEvent(db(), id))!.event.transferDeadline, null);
  });

  test('create: each error next to its field, values kept, nothing written', async () => {
    const before = (await listEventsOfOrganization(db(), organizationId)).length;
    const auditBefore = (await auditActions()).length;
    await owner.get('/events/new');
    const res = await owner.post('/events', {
      ...EVENT_FIELDS,
      name: '',
      timezone: 'Africa/Kampala',
      ends_at: '2027-03-14T05:00',
      reg_closes_at: '2026-11-01T08:00',
      currency: 'ugx shillings',
      support_email: 'not-an-email',
      cover: 'ftp://x',
      waiver_version: '',
      q0_key: 'T-Shirt',
    });
    assert.equal(res.statusCode, 422);
    assert.match(res.body, /<title>Error: New event/);
    for (const [field, message] of [
      ['name', 'Enter the name'],
      ['ends_at', 'The end must be after the start'],
      ['reg_closes_at', 'Registration must close after it opens'],
      ['currency', 'three capital letters'],
      ['support_email', 'name@example.org'],
      ['cover', 'https://'],
      ['waiver_version', 'Enter the waiver version'],
      ['q0_key', 'Question 1: enter a key'],
    ]) {
      assert.match(res.body, new RegExp(`id="f-${field}-error">[^<]*${message}`), field);
      assert.match(res.body, new RegExp(`href="#f-${field}"`), `${field} in the summary`);
    }
    assert.match(res.body, /id="f-venue"[^>]*value="Jinja Source of the Nile"/);
    assert.equal((await listEventsOfOrganization(db(), organizationId)).length, before);
    assert.equal((await auditActions()).length, auditBefore);
    const zone = await owner.post('/events', { ...EVENT_FIELDS, timezone: 'Mars/Olympus' });
    assert.equal(zone.statusCode, 422);
    assert.match(zone.body, /id="f-timezone-error">Enter a time zone name/);
  });

  test('an unknown choice or a value over the admin API limit is the form again with its message, nothing written', async () => {
    const before = (await listEventsOfOrganization(db(), organizationId)).length;
    const auditBefore = (await auditActions()).length;
    const help = limitOf(QuestionIn.properties.help, 'maxLength');
    const date = limitOf(EventCreateIn.properties.starts_at, 'maxLength');
    await owner.get('/events/new');
    const res = await owner.post('/events', {
      ...EVENT_FIELDS,
      visibility: 'secret',
      q0_type: 'checkbox',
      q1_label: 'Club',
      q1_key: 'club',
      q1_type: 'text',
      q1_help: 'h'.repeat(help + 1),
      starts_at: '2027-03-14T06:30'.padEnd(date + 1, '0'),
    });
    assert.equal(res.statusCode, 422);
    for (const [field, message] of [
      ['visibility', 'Choose who can see the event.'],
      ['q0_type', 'Question 1: choose the kind of answer.'],
      ['q1_help', `Question 2: the help text must be at most ${help} characters.`],
      ['starts_at', `Start must be at most ${date} characters.`],
    ] as const) {
      assert.match(res.body, new RegExp(`id="f-${field}-error">${message.replace('.', '\\.')}<`), field);
    }
    assert.equal((await listEventsOfOrganization(db(), organizationId)).length, before);
    assert.equal((await auditActions()).length, auditBefore);

    const event = await makeEvent(h, { organizationId } as never, { name: 'Kabale Hills', status: 'draft' });
    const url = `/events/${event.id}`;
    const name = limitOf(TicketTypeIn.properties.name, 'maxLength');
    const description = limitOf(TicketTypeIn.properties.description, 'maxLength');
    const ticketTypesBefore = (await findEvent(db(), event.id))!.ticketTypes.length;
    await owner.get(url);
    const ticket = await owner.post(`${url}/ticket-types`, {
      new_name: 'n'.repeat(name + 1),
      new_description: 'd'.repeat(description + 1),
      new_price: '1000',
      new_capacity: '10',
    });
    assert.equal(ticket.statusCode, 422);
    assert.match(
      ticket.body,
      new RegExp(`id="f-new_name-error">The name must be at most ${name} characters\\.`),
    );
    assert.match(
      ticket.body,
      new RegExp(`id="f-new_description-error">Description must be at most ${description} characters\\.`),
    );
    assert.equal((await findEvent(db(), event.id))!.ticketTypes.length, ticketTypesBefore);
  });

  test('edit, ticket types (errors next to fields), publish, close, cancel; refused moves change nothing', async () => {
    const event = await makeEvent(h, { organizationId } as never, { name: 'Gulu Trail', status: 'draft' });
    const url = `/events/${event.id}`;
    await owner.get(`${url}/edit`);
    const edited = await owner.post(url, { ...EVENT_FIELDS, name: 'Gulu Trail Run', timezone: 'UTC' });
    assert.equal(edited.statusCode, 303, edited.body.slice(0, 500));
    let found = (await findEvent(db(), event.id))!;
    assert.equal(found.event.name, 'Gulu Trail Run');
    assert.equal(found.event.startsAt.toISOString(), '2027-03-14T06:30:00.000Z');
    const [editEntry] = (await listAuditEvents(db(), organizationId, { limit: 1 })).rows;
    assert.equal(editEntry!.action, 'event.updated');
    assert.ok((editEntry!.details as { changed: string[] }).changed.includes('starts_at'));
    assert.ok((editEntry!.details as { changed: string[] }).changed.includes('timezone'));

    await owner.get(url);
    const bad = await owner.post(`${url}/ticket-types`, {
      new_name: '',
      new_price: '12.5',
      new_capacity: '0',
      new_distance_km: '21.1',
    });
    assert.equal(bad.statusCode, 422);
    assert.match(bad.body, /id="f-new_name-error">Enter the name of the ticket type/);
    assert.match(bad.body, /id="f-new_price-error">Enter the price in UGX/);
    assert.match(bad.body, /id="f-new_capacity-error">Enter how many places/);
    assert.match(bad.body, /id="f-new_distance_km"[^>]*value="21.1"/);
    assert.equal((await findEvent(db(), event.id))!.ticketTypes.length, found.ticketTypes.length);

    const added = await owner.post(`${url}/ticket-types`, {
      new_name: 'Half marathon',
      new_price: '50,000',
      new_capacity: '300',
      new_distance_km: '21.1',
      new_min_age: '16',
    });
    assert.equal(added.statusCode, 303);
    found = (await findEvent(db(), event.id))!;
    const half = found.ticketTypes.find((t) => t.name === 'Half marathon')!;
    assert.equal(half.priceMinor, 50000);
    assert.equal(half.minAge, 16);
    assert.equal(half.salesEnd.toISOString(), found.event.regClosesAt.toISOString());

    await owner.get(url);
    const p = `${half.id}_`;
    const updated = await owner.post(`${url}/ticket-types/${half.id}`, {
      [`${p}name`]: 'Half marathon',
      [`${p}price`]: '55000',
      [`${p}capacity`]: '250',
      [`${p}distance_km`]: '21.1',
      [`${p}min_age`]: '18',
    });
    assert.equal(updated.statusCode, 303);
    const after = (await findEvent(db(), event.id))!.ticketTypes.find((t) => t.id === half.id)!;
    assert.equal(after.priceMinor, 55000);
    assert.equal(after.capacity, 250);

    // no price is Free; no number of places is no limit
    const fun = await owner.post(`${url}/ticket-types`, {
      new_name: 'Fun run',
      new_price: '0',
      new_capacity: '',
    });
    assert.equal(fun.statusCode, 303);
    const funRun = (await findEvent(db(), event.id))!.ticketTypes.find((t) => t.name === 'Fun run')!;
    assert.equal(funRun.capacity, UNLIMITED_CAPACITY);
    const shown = await owner.get(url);
    assert.match(textOf(shown.body), /Half marathon UGX 55,000 · 250 places/);
    assert.match(
      textOf(shown.body),
      /Buyers pay UGX 56,925 with MTN MoMo or Airtel Money \(UGX 1,925 service fee\); you receive UGX 55,000\./,
    );
    assert.match(textOf(shown.body), /Fun run Free · No limit of places \(0 paid, 0 held\)/);
    assert.match(shown.body, new RegExp(`id="f-${funRun.id}_capacity"[^>]*value=""`));

    const confirm = await owner.get(`${url}/publish`);
    assert.equal(confirm.statusCode, 200);
    assert.match(textOf(confirm.body), /Publish Gulu Trail Run\?/);
    assert.equal((await owner.post(`${url}/publish`)).statusCode, 303);
    assert.equal((await findEvent(db(), event.id))!.event.status, 'open');
    const again = await owner.post(`${url}/publish`);
    assert.equal(again.statusCode, 409);
    assert.match(textOf(again.body), /already open, so there is nothing to publish\. Nothing was changed/);
    assert.equal((await owner.post(`${url}/close`)).statusCode, 303);
    assert.equal((await findEvent(db(), event.id))!.event.status, 'closed');
    assert.equal((await owner.post(`${url}/cancel`)).statusCode, 303);
    assert.equal((await findEvent(db(), event.id))!.event.status, 'cancelled');
    const refused = await owner.get(`${url}/publish`);
    assert.equal(refused.statusCode, 409);
    assert.match(textOf(refused.body), /cancelled, so it cannot be changed/);
    assert.equal((await owner.post(`${url}/publish`)).statusCode, 409);
    assert.equal((await findEvent(db(), event.id))!.event.status, 'cancelled');

    const actions = await auditActions();
    for (const a of ['event.updated', 'ticket_type.created', 'ticket_type.updated', 'event.status_changed']) {
      assert.ok(actions.includes(a), a);
    }
    assert.equal(actions.filter((a) => a === 'event.status_changed').length, 3);
  });

  test('an admin edits a ticket type: places below those sold and an empty sales window are refused next to their fields', async () => {
    const admin = await signIn(h, await makeMember(h, organizationId, 'admin'));
    const event = await makeEvent(h, { organizationId } as never, {
      name: 'Entebbe Lakeside',
      status: 'draft',
    });
    const [tt] = (await findEvent(db(), event.id))!.ticketTypes;
    // places already paid for and held, as orders would leave them
    await db().update(ticketTypes).set({ paidCount: 30, heldCount: 10 }).where(eq(ticketTypes.id, tt!.id));
    const url = `/events/${event.id}`;
    const p = `${tt!.id}_`;
    const fields = {
      [`${p}name`]: 'Lake 21',
      [`${p}price`]: '30000',
      [`${p}capacity`]: '25',
      [`${p}distance_km`]: '21.1',
      [`${p}min_age`]: '',
      [`${p}sales_start`]: '',
      [`${p}sales_end`]: '',
    };
    await admin.get(url);
    const below = await admin.post(`${url}/ticket-types/${tt!.id}`, fields);
    assert.equal(below.statusCode, 422);
    assert.match(below.body, new RegExp(`id="f-${p}capacity-error">Enter at least 40`));
    assert.match(below.body, new RegExp(`id="f-${p}name"[^>]*value="Lake 21"`));
    assert.match(below.body, /<details\s+open/);
    const window = await admin.post(`${url}/ticket-types/${tt!.id}`, {
      ...fields,
      [`${p}capacity`]: '400',
      [`${p}sales_start`]: '2026-09-01T10:00',
      [`${p}sales_end`]: '2026-08-01T10:00',
      [`${p}min_age`]: '130',
    });
    assert.equal(window.statusCode, 422);
    assert.match(window.body, new RegExp(`id="f-${p}sales_end-error">Sales must end after they start`));
    assert.match(window.body, new RegExp(`id="f-${p}min_age-error">Enter the minimum age`));
    const unchanged = (await findEvent(db(), event.id))!.ticketTypes[0]!;
    assert.deepEqual([unchanged.name, unchanged.capacity], [tt!.name, tt!.capacity]);

    const ok = await admin.post(`${url}/ticket-types/${tt!.id}`, { ...fields, [`${p}capacity`]: '40' });
    assert.equal(ok.statusCode, 303, ok.body.slice(0, 300));
    const [entry] = (await listAuditEvents(db(), organizationId, { limit: 1 })).rows;
    assert.equal(entry!.action, 'ticket_type.updated');
    assert.equal(entry!.targetId, tt!.id);
    assert.equal(entry!.ip, admin.ip);
    assert.deepEqual(entry!.details, {
      event_id: event.id,
      name: 'Lake 21',
      price_minor: 30000,
      capacity: 40,
    });
  });

  test('a viewer reads the event page but gets 403 on every write; another organization gets 404', async () => {
    const event = await makeEvent(h, { organizationId } as never, { name: 'Mbarara Ten', status: 'draft' });
    const url = `/events/${event.id}`;
    const page = await viewer.get(url);
    assert.equal(page.statusCode, 200);
    assert.doesNotMatch(page.body, /Add a ticket type|Edit event/);
    for (const path of ['/events/new', `${url}/edit`, `${url}/publish`]) {
      assert.equal((await viewer.get(path)).statusCode, 403, path);
    }
    const res = await viewer.post(url, { ...EVENT_FIELDS, name: 'Renamed' });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /Your role cannot do this/);
    assert.equal((await viewer.post(`${url}/publish`)).statusCode, 403);
    assert.equal((await findEvent(db(), event.id))!.event.name, 'Mbarara Ten');
    assert.equal((await findEvent(db(), event.id))!.event.status, 'draft');

    const other = await signIn(h, await makeMember(h, (await makePartner(h)).organizationId, 'owner'));
    assert.equal((await other.get(url)).statusCode, 404);
    assert.equal((await other.post(`${url}/publish`)).statusCode, 404);
    assert.equal((await findEvent(db(), event.id))!.event.status, 'draft');
  });
});
