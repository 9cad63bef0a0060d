// Donations switched on or off per event: on by default, the organizer's form and the admin API
// set it, the buyer's page offers the box only when on, and an order with a donation is refused
// for an event that takes none (a stale checkout page's box gives nothing).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findEvent, patchEvent } from '../../src/events/events.ts';
import { bearer, startHarness, type Harness } from '../helpers/harness.ts';
import { BUYER, expectFieldErrors, postOrder } from '../orders/order-helpers.ts';
import {
  createSession,
  fullForm,
  getPage,
  makeRace,
  postForm,
  readSession,
  type Race,
} from '../site/site-helpers.ts';
import { locationOf, makeMember, signIn } from '../app/app-helpers.ts';

let h: Harness;
let race: Race;

before(async () => {
  h = await startHarness();
  race = await makeRace(h, { waiver_required: false });
});
after(() => h.close());

const db = () => h.service.ctx.database.db;
const switchDonations = (on: boolean) =>
  patchEvent(db(), race.eventId, { donations_enabled: on }, new Date());

const order = (donation: number) =>
  postOrder(h, bearer(race.token), {
    event_id: race.eventId,
    items: [{ ticket_type_id: race.free, participant_name: 'Okello Brian', answers: { tshirt: 'M' } }],
    buyer: BUYER,
    donation_minor: donation,
  });

describe('donations per event', () => {
  test('on by default: the buyer page offers the box and an order may give', async () => {
    assert.equal((await findEvent(db(), race.eventId))!.event.donationsEnabled, true);
    const page = await getPage(h, `/checkout/${await createSession(h, race)}`);
    assert.match(page.body, /id="f-donation_minor"/);
    const res = await order(2000);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal((res.json() as { data: { donation_total: number } }).data.donation_total, 2000);
  });

  test('off: no box on the buyer page, an order with a donation is refused, one without is taken', async () => {
    await switchDonations(false);
    try {
      const id = await createSession(h, race);
      const page = await getPage(h, `/checkout/${id}`);
      assert.doesNotMatch(page.body, /id="f-donation_minor"/);
      const refused = expectFieldErrors(await order(1000), ['donation_minor']);
      assert.match(JSON.stringify(refused), /this event takes no donations/);
      assert.equal((await order(0)).statusCode, 201);
      // a page opened before the switch still posts its box: the order is placed without the gift
      const paid = await postForm(h, `/checkout/${id}/order`, {
        ...fullForm(race, { phone: '0770000001' }),
        donation_minor: '5000',
      });
      assert.equal(paid.statusCode, 303, paid.body.slice(0, 400));
      const session = await readSession(h, race, id);
      const placed = await h.service.api.inject({
        method: 'GET',
        url: `/v1/orders/${session.order!.id}`,
        headers: bearer(race.token),
      });
      const data = placed.json().data as { donation_total: number; total: number; subtotal: number };
      assert.equal(data.donation_total, 0);
    } finally {
      await switchDonations(true);
    }
  });

  test('the organizer switches it on the event form; a new event starts with it on', async () => {
    const owner = await signIn(h, await makeMember(h, race.partner.organizationId, 'owner'));
    const blank = await owner.get('/events/new');
    assert.match(blank.body, /<input[^>]*name="donations_enabled"[^>]*checked/);
    const created = await owner.post('/events', { ...EVENT_FIELDS, donations_enabled: 'yes' });
    const id = /^\/events\/(evt_\w+)\?done=created$/.exec(locationOf(created))?.[1];
    assert.ok(id, created.body.slice(0, 400));
    assert.equal((await findEvent(db(), id))!.event.donationsEnabled, true);
    const edit = await owner.get(`/events/${id}/edit`);
    assert.match(edit.body, /<input[^>]*name="donations_enabled"[^>]*checked/);
    // an unticked box is absent from the form's body
    const saved = await owner.post(`/events/${id}`, EVENT_FIELDS);
    assert.equal(saved.statusCode, 303, saved.body.slice(0, 600));
    assert.equal((await findEvent(db(), id))!.event.donationsEnabled, false);
    const shown = await owner.get(`/events/${id}`);
    assert.match(shown.body, /Donations<\/dt>\s*<dd>Not offered/);
    const again = await owner.get(`/events/${id}/edit`);
    assert.doesNotMatch(again.body, /<input[^>]*name="donations_enabled"[^>]*checked/);
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
