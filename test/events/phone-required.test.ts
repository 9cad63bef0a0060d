// Whether a free registration must give the buyer's phone: off by default, set on the organizer's
// event form; the orders rule takes an empty phone on a free order only while it is off, for the
// partner API as for the hosted checkout (the checkout's own tests are in test/site).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findEvent, patchEvent } from '../../src/events/events.ts';
import { bearer, startHarness, type Harness } from '../helpers/harness.ts';
import { BUYER, expectFieldErrors, postOrder } from '../orders/order-helpers.ts';
import { makeRace, type Race } from '../site/site-helpers.ts';
import { locationOf, makeMember, signIn } from '../app/app-helpers.ts';

let h: Harness;
let race: Race;

before(async () => {
  h = await startHarness();
  race = await makeRace(h, { waiver_required: false });
});
after(() => h.close());

const db = () => h.service.ctx.database.db;

const order = (ticket: string, phone: string) =>
  postOrder(h, bearer(race.token), {
    event_id: race.eventId,
    items: [
      {
        ticket_type_id: ticket,
        participant_name: 'Okello Brian',
        answers: { tshirt: 'M' },
        ...(ticket === race.paid && { date_of_birth: '1995-04-12' }),
      },
    ],
    buyer: { ...BUYER, phone },
  });

describe('phone on free registrations', () => {
  test('off by default: a free order may leave it out and returns phone ""; a paid one may not', async () => {
    assert.equal((await findEvent(db(), race.eventId))!.event.phoneRequired, false);
    const free = await order(race.free, '');
    assert.equal(free.statusCode, 201, free.body);
    assert.equal((free.json() as { data: { buyer: { phone: string } } }).data.buyer.phone, '');
    expectFieldErrors(await order(race.free, 'not a phone'), ['buyer.phone']);
    expectFieldErrors(await order(race.paid, ''), ['buyer.phone']);
  });

  test('on: a free order needs it too', async () => {
    await patchEvent(db(), race.eventId, { phone_required: true }, new Date());
    try {
      expectFieldErrors(await order(race.free, ''), ['buyer.phone']);
      assert.equal((await order(race.free, '0772123456')).statusCode, 201);
    } finally {
      await patchEvent(db(), race.eventId, { phone_required: false }, new Date());
    }
  });

  test('the organizer ticks it on the event form; unticked it is off', async () => {
    const owner = await signIn(h, await makeMember(h, race.partner.organizationId, 'owner'));
    const blank = await owner.get('/events/new');
    assert.match(blank.body, /<input[^>]*name="phone_required"/);
    assert.doesNotMatch(blank.body, /<input[^>]*name="phone_required"[^>]*checked/);
    const created = await owner.post('/events', { ...EVENT_FIELDS, phone_required: 'yes' });
    const id = /^\/events\/(evt_\w+)\?done=created$/.exec(locationOf(created))?.[1];
    assert.ok(id, created.body.slice(0, 400));
    assert.equal((await findEvent(db(), id))!.event.phoneRequired, true);
    const edit = await owner.get(`/events/${id}/edit`);
    assert.match(edit.body, /<input[^>]*name="phone_required"[^>]*checked/);
    const saved = await owner.post(`/events/${id}`, EVENT_FIELDS);
    assert.equal(saved.statusCode, 303, saved.body.slice(0, 600));
    assert.equal((await findEvent(db(), id))!.event.phoneRequired, false);
    const shown = await owner.get(`/events/${id}`);
    assert.match(shown.body, /Phone on free registrations<\/dt>\s*<dd>Optional/);
  });
});

const EVENT_FIELDS = {
  name: 'Mbale Hills 21K',
  visibility: 'public',
  timezone: 'Africa/Kampala',
  starts_at: '2027-05-09T06:30',
  ends_at: '2027-05-09T12:00',
  reg_opens_at: '2026-12-01T08:00',
  reg_closes_at: '2027-05-05T23:59',
  currency: 'UGX',
};
