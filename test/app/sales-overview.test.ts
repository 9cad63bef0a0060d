// The home page's sales at a glance through HTTP: every role reads it, it shows the default
// event's chart, capacity and money, ?event= picks another event, and an event of another
// organization (or a malformed id) is the same 404 page as a missing one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ticketTypesOf } from '../../src/events/events.ts';
import { makeEvent, makePartner, startHarness, type Harness, type TestPartner } from '../helpers/harness.ts';
import { insertOrder } from '../sales/sales-fixtures.ts';
import { makeMember, signIn, textOf, type Agent } from './app-helpers.ts';

const DAY = 24 * 3600_000;

describe('sales at a glance on the home page', () => {
  let h: Harness;
  let partner: TestPartner;
  let viewer: Agent;
  let laterId: string;
  let foreignId: string;

  before(async () => {
    h = await startHarness();
    const db = h.service.ctx.database.db;
    partner = await makePartner(h);
    const now = h.clock.now().getTime();
    const next = await makeEvent(h, partner, { name: 'Next <Race>' });
    const later = await makeEvent(h, partner, {
      name: 'Later Marathon',
      starts_at: new Date(now + 60 * DAY).toISOString(),
      ends_at: new Date(now + 60 * DAY + 3600_000).toISOString(),
    });
    laterId = later.id;
    const [ten] = (await ticketTypesOf(db, [next.id])).sort((a, b) => a.position - b.position);
    for (const days of [3, 1, 1]) {
      await insertOrder(db, {
        organizationId: partner.organizationId,
        eventId: next.id,
        ticketTypeIds: [ten!.id],
        paymentMethod: 'momo',
        apiClientId: partner.clientId,
        total: 31050,
        fee: 1050,
        createdAt: new Date(now - days * DAY),
      });
    }
    const other = await makePartner(h);
    foreignId = (await makeEvent(h, other)).id;
    viewer = await signIn(h, await makeMember(h, partner.organizationId, 'viewer'));
  });
  after(() => h.close());

  test('shows the next event with its chart, places and money to a viewer', async () => {
    const res = await viewer.get('/');
    assert.equal(res.statusCode, 200);
    const text = textOf(res.body);
    assert.match(text, /Sales at a glance/);
    assert.match(res.body, /<option value="[^"]+"\s+selected\s*>\s*Next &lt;Race&gt;/);
    assert.match(res.body, /<svg[^>]*role="img"/);
    assert.match(text, /Paid registrations per day, Next <Race>/);
    assert.match(text, /3 sold · 0 held · 97 left of 100/);
    assert.match(text, /MTN MoMo 3 UGX\s93,150 UGX\s3,150/);
    assert.match(text, /Partner API: Test client 3/);
    assert.match(text, /Nothing needs attention/);
    assert.match(text, /with the role viewer/);
  });

  test('shows another event of the organization when asked', async () => {
    const res = await viewer.get(`/?event=${laterId}`);
    assert.equal(res.statusCode, 200);
    assert.match(textOf(res.body), /No paid registrations yet/);
    assert.match(res.body, /<option value="[^"]+"\s+selected\s*>\s*Later Marathon/);
  });

  test("answers another organization's event and a malformed id with the not-found page", async () => {
    for (const url of [
      `/?event=${foreignId}`,
      '/?event=evt_missingmissingmissing',
      '/?event=not-an-id',
      '/?event=a&event=b',
    ]) {
      const res = await viewer.get(url);
      assert.equal(res.statusCode, 404, url);
      assert.doesNotMatch(res.body, /Sales at a glance/);
    }
  });

  test('says so when the organization has no events yet', async () => {
    const lonely = await makePartner(h);
    const owner = await signIn(h, await makeMember(h, lonely.organizationId, 'owner'));
    const text = textOf((await owner.get('/')).body);
    assert.match(text, /No events yet/);
    assert.match(text, /Nothing needs attention/);
  });
});
