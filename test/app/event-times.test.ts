// The event form's dates across daylight saving: local date and time in the event's zone turned
// into the right instant and back, on the spring-forward and fall-back days of zones that have
// them; a time the clocks skip is refused next to its field, a time they pass twice is the first.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findEvent, listEventsOfOrganization } from '../../src/events/events.ts';
import { fromLocalTime, toLocalTime } from '../../src/app/routes/event-form.ts';
import { makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { locationOf, makeMember, signIn } from './app-helpers.ts';

const at = (iso: string) => new Date(iso);

describe('local times in a zone', () => {
  // [zone, local, instant]: both sides of each change, and the first of a repeated hour
  const cases: [string, string, string][] = [
    // New York, 2027-03-14: 02:00 EST becomes 03:00 EDT
    ['America/New_York', '2027-03-14T01:59', '2027-03-14T06:59:00.000Z'],
    ['America/New_York', '2027-03-14T03:00', '2027-03-14T07:00:00.000Z'],
    // New York, 2027-11-07: 02:00 EDT becomes 01:00 EST, so 01:30 happens twice
    ['America/New_York', '2027-11-07T00:30', '2027-11-07T04:30:00.000Z'],
    ['America/New_York', '2027-11-07T01:30', '2027-11-07T05:30:00.000Z'],
    ['America/New_York', '2027-11-07T02:30', '2027-11-07T07:30:00.000Z'],
    // London, 2027-03-28: 01:00 GMT becomes 02:00 BST
    ['Europe/London', '2027-03-28T00:59', '2027-03-28T00:59:00.000Z'],
    ['Europe/London', '2027-03-28T02:00', '2027-03-28T01:00:00.000Z'],
    // London, 2027-10-31: 02:00 BST becomes 01:00 GMT, so 01:30 happens twice
    ['Europe/London', '2027-10-31T00:30', '2027-10-30T23:30:00.000Z'],
    ['Europe/London', '2027-10-31T01:30', '2027-10-31T00:30:00.000Z'],
    ['Europe/London', '2027-10-31T02:30', '2027-10-31T02:30:00.000Z'],
    // no daylight saving; half-hour offsets
    ['Africa/Kampala', '2027-03-14T06:30', '2027-03-14T03:30:00.000Z'],
    ['Asia/Kolkata', '2027-03-14T06:30', '2027-03-14T01:00:00.000Z'],
  ];
  for (const [zone, local, instant] of cases) {
    test(`${local} in ${zone} is ${instant}, and back`, () => {
      const date = fromLocalTime(local, zone);
      assert.ok(date instanceof Date, String(date));
      assert.equal(date.toISOString(), instant);
      assert.equal(toLocalTime(date, zone), local);
    });
  }

  test('the second of a repeated hour reads back as that hour too', () => {
    assert.equal(toLocalTime(at('2027-11-07T06:30:00Z'), 'America/New_York'), '2027-11-07T01:30');
    assert.equal(toLocalTime(at('2027-10-31T01:30:00Z'), 'Europe/London'), '2027-10-31T01:30');
  });

  test('a time the clocks skip is refused as skipped', () => {
    assert.equal(fromLocalTime('2027-03-14T02:30', 'America/New_York'), 'skipped');
    assert.equal(fromLocalTime('2027-03-28T01:30', 'Europe/London'), 'skipped');
  });

  test('what is not a date and a time is null', () => {
    for (const value of [
      '',
      '2027-02-30T06:30',
      '2027-03-14T24:00',
      '2027-03-14T06:60',
      '2027-03-14 06:30',
    ]) {
      assert.equal(fromLocalTime(value, 'Europe/London'), null, value);
    }
  });
});

describe('the event form across daylight saving', () => {
  let h: Harness;
  let organizationId: string;
  let owner: Awaited<ReturnType<typeof signIn>>;

  before(async () => {
    h = await startHarness();
    organizationId = (await makePartner(h)).organizationId;
    owner = await signIn(h, await makeMember(h, organizationId, 'owner'));
  });
  after(() => h.close());

  const fields = (zone: string, dates: Record<string, string>) => ({
    name: 'Clock Change Run',
    visibility: 'unlisted',
    timezone: zone,
    currency: 'USD',
    ...dates,
  });

  const created = async (form: Record<string, string>) => {
    await owner.get('/events/new');
    const res = await owner.post('/events', form);
    assert.equal(res.statusCode, 303, res.body.slice(0, 500));
    const id = /^\/events\/(evt_\w+)\?done=created$/.exec(locationOf(res))?.[1];
    assert.ok(id);
    return { id, event: (await findEvent(h.service.ctx.database.db, id))!.event };
  };

  test('New York: dates on both sides of spring forward are stored as those instants and shown back', async () => {
    const dates = {
      reg_opens_at: '2026-12-01T08:00',
      reg_closes_at: '2027-03-14T01:30',
      starts_at: '2027-03-14T03:30',
      ends_at: '2027-03-14T13:00',
    };
    const { id, event } = await created(fields('America/New_York', dates));
    assert.equal(event.regOpensAt.toISOString(), '2026-12-01T13:00:00.000Z');
    assert.equal(event.regClosesAt.toISOString(), '2027-03-14T06:30:00.000Z');
    assert.equal(event.startsAt.toISOString(), '2027-03-14T07:30:00.000Z');
    assert.equal(event.endsAt.toISOString(), '2027-03-14T17:00:00.000Z');
    const edit = await owner.get(`/events/${id}/edit`);
    for (const [name, value] of Object.entries(dates)) {
      assert.match(edit.body, new RegExp(`id="f-${name}"[^>]*value="${value}"`), name);
    }
  });

  test('London: a repeated time on fall back is the first, and the form shows it back', async () => {
    const dates = {
      reg_opens_at: '2027-03-28T03:00',
      reg_closes_at: '2027-10-30T23:00',
      starts_at: '2027-10-31T01:30',
      ends_at: '2027-10-31T03:00',
    };
    const { id, event } = await created(fields('Europe/London', dates));
    assert.equal(event.regOpensAt.toISOString(), '2027-03-28T02:00:00.000Z');
    assert.equal(event.regClosesAt.toISOString(), '2027-10-30T22:00:00.000Z');
    assert.equal(event.startsAt.toISOString(), '2027-10-31T00:30:00.000Z');
    assert.equal(event.endsAt.toISOString(), '2027-10-31T03:00:00.000Z');
    const edit = await owner.get(`/events/${id}/edit`);
    for (const [name, value] of Object.entries(dates)) {
      assert.match(edit.body, new RegExp(`id="f-${name}"[^>]*value="${value}"`), name);
    }
  });

  test('a start the clocks skip is refused next to its field and nothing is written', async () => {
    const before = (await listEventsOfOrganization(h.service.ctx.database.db, organizationId)).length;
    await owner.get('/events/new');
    const res = await owner.post(
      '/events',
      fields('America/New_York', {
        reg_opens_at: '2026-12-01T08:00',
        reg_closes_at: '2027-03-10T23:00',
        starts_at: '2027-03-14T02:30',
        ends_at: '2027-03-14T13:00',
      }),
    );
    assert.equal(res.statusCode, 422, res.body.slice(0, 300));
    assert.match(res.body, /id="f-starts_at-error">That time does not exist in America\/New_York/);
    assert.match(res.body, /id="f-starts_at"[^>]*value="2027-03-14T02:30"/);
    assert.equal((await listEventsOfOrganization(h.service.ctx.database.db, organizationId)).length, before);
  });
});
