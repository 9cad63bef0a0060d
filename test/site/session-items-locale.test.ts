// A session's line_items and locale (DESIGN: session creation's optional fields): validated with
// the other fields (an unknown ticket type is a field error, nothing written); the hosted page
// opens with the partner's tickets chosen, on the buyer's details (again so with an unpaid order's
// values), and in the session's language unless the buyer picks another.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { bearer, startHarness, type Harness } from '../helpers/harness.ts';
import {
  countRows,
  fullForm,
  getPage,
  makeRace,
  postForm,
  SHOP,
  tagWithId,
  type Race,
} from './site-helpers.ts';

let h: Harness;
let race: Race;

before(async () => {
  h = await startHarness();
  race = await makeRace(h);
});
after(() => h.close());

function create(body: Record<string, unknown>) {
  return h.service.api.inject({
    method: 'POST',
    url: '/v1/checkout-sessions',
    headers: { ...bearer(race.token), 'content-type': 'application/json' },
    payload: JSON.stringify({
      event_id: race.eventId,
      on_success_url: `${SHOP}/thanks`,
      on_cancel_url: `${SHOP}/cart`,
      ...body,
    }),
  });
}

const sessions = () => countRows(h, sql`SELECT count(*)::int AS n FROM checkout_sessions`);

describe('session line_items and locale', () => {
  test('refused with the field named, nothing written', async () => {
    const before = await sessions();
    const cases: [unknown, string[]][] = [
      [{ line_items: [{ ticket_type_id: race.paid, quantity: 0 }] }, ['line_items[0].quantity']],
      [{ line_items: [{ ticket_type_id: race.paid, quantity: 11 }] }, ['line_items[0].quantity']],
      [{ line_items: [{ ticket_type_id: race.paid }] }, ['line_items[0].quantity']],
      [
        {
          line_items: [
            { ticket_type_id: race.paid, quantity: 1 },
            { ticket_type_id: race.paid, quantity: 2 },
          ],
        },
        ['line_items[1].ticket_type_id'],
      ],
      [
        {
          line_items: [
            { ticket_type_id: race.paid, quantity: 6 },
            { ticket_type_id: race.free, quantity: 5 },
          ],
        },
        ['line_items'],
      ],
      [
        { line_items: [{ ticket_type_id: 'tt_unknown000000000000000', quantity: 1 }] },
        ['line_items[0].ticket_type_id'],
      ],
      [{ locale: 'fr' }, ['locale']],
    ];
    for (const [body, fields] of cases) {
      const res = await create(body as Record<string, unknown>);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      const error = res.json() as { error_code: string; errors?: { field: string }[]; details?: unknown };
      assert.equal(error.error_code, 'validation_failed');
      const named = JSON.stringify(error);
      for (const field of fields) assert.ok(named.includes(`"${field}"`), `${field} in ${named}`);
    }
    assert.equal(await sessions(), before);
  });

  test('the page opens with the partner tickets chosen, on the buyer details', async () => {
    const res = await create({ line_items: [{ ticket_type_id: race.paid, quantity: 2 }] });
    assert.equal(res.statusCode, 201, res.body);
    const page = await getPage(h, `/checkout/${res.json().data.id}`);
    assert.match(page.body, /data-stage="details"/);
    assert.match(tagWithId(page.body, 'f-items'), /name="qty\./);
    assert.match(page.body, new RegExp(`name="qty\\.${race.paid}"[\\s\\S]*?<option value="2" selected>`));
    assert.equal(page.body.match(/<fieldset class="participant" data-item data-key="tt_/g)?.length, 2);
  });

  test("back on the page with an unpaid order: on the buyer's details again, with what was sent", async () => {
    const res = await create({ line_items: [{ ticket_type_id: race.paid, quantity: 1 }] });
    const id = res.json().data.id as string;
    // the simulator's number that never answers: the order stays unpaid, its prompt out
    const paid = await postForm(h, `/checkout/${id}/order`, fullForm(race, { phone: '0770000009' }));
    assert.equal(paid.statusCode, 303);
    const page = await getPage(h, `/checkout/${id}`);
    assert.match(page.body, /data-stage="details"/);
    assert.match(page.body, /value="Okello Brian"/);
    assert.match(page.body, /data-tickets-known/);
  });

  test("the page speaks the session's language over the browser's, and the buyer's choice over both", async () => {
    const res = await create({ locale: 'sw' });
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json().data.id as string;
    const sw = await getPage(h, `/checkout/${id}`, { 'accept-language': 'en-GB,en;q=0.9' });
    assert.match(sw.body, /<html lang="sw"/);
    const en = await getPage(h, `/checkout/${id}?lang=en`, { 'accept-language': 'sw' });
    assert.match(en.body, /<html lang="en"/);
    const plain = await create({});
    const browser = await getPage(h, `/checkout/${plain.json().data.id}`, { 'accept-language': 'sw' });
    assert.match(browser.body, /<html lang="sw"/);
  });
});
