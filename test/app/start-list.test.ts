// The start list pages: the events list, ranges with errors next to their fields, assigning bib
// numbers (audited, with who and from where), read-only for viewers, pages of 100 runners, the
// shortfall of a full range in words, and the CSV download.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listAuditEvents } from '../../src/audit/audit-log.ts';
import { findRaceEvent, type RaceEvent } from '../../src/startlists/race-event.ts';
import { makeEvent, makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { seedRunners } from '../startlists/seed-runners.ts';
import { Agent, locationOf, makeMember, signIn, textOf } from './app-helpers.ts';

let h: Harness;
let organizationId: string;
let owner: Agent;
let viewer: Agent;

before(async () => {
  h = await startHarness();
  organizationId = (await makePartner(h)).organizationId;
  owner = await signIn(h, await makeMember(h, organizationId, 'owner'));
  viewer = await signIn(h, await makeMember(h, organizationId, 'viewer'));
});
after(() => h.close());

const db = () => h.service.ctx.database.db;

async function newRace(name: string): Promise<RaceEvent> {
  const event = await makeEvent(h, { organizationId } as never, {
    name,
    additional_questions: [
      {
        key: 'tshirt',
        label: 'T-shirt size',
        type: 'select',
        required: true,
        options: ['S', 'M', 'L'],
        help: '',
      },
    ],
  });
  return (await findRaceEvent(db(), organizationId, event.id))!;
}

function rangeFields(race: RaceEvent, ranges: [string, string][]) {
  return Object.fromEntries(
    race.ticketTypes.flatMap((t, i) => [
      [`first_${t.id}`, ranges[i]?.[0] ?? ''],
      [`last_${t.id}`, ranges[i]?.[1] ?? ''],
    ]),
  );
}

describe('start list pages', () => {
  test('the events list links to each start list', async () => {
    const race = await newRace('Kampala City Run');
    const res = await owner.get('/events');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, new RegExp(`href="/events/${race.event.id}/start-list"`));
    assert.match(textOf(res.body), /Kampala City Run/);
  });

  test('ranges: errors next to their fields, values kept, nothing saved; then saved and audited', async () => {
    const race = await newRace('Ranges Run');
    const url = `/events/${race.event.id}`;
    await owner.get(`${url}/start-list`);
    const [ten, five] = race.ticketTypes.map((t) => t.id);
    const bad = await owner.post(
      `${url}/bib-ranges`,
      rangeFields(race, [
        ['100', '50'],
        ['1', '20'],
      ]),
    );
    assert.equal(bad.statusCode, 422);
    assert.match(bad.body, /<title>Error: Start list/);
    assert.match(
      bad.body,
      new RegExp(`id="f-last_${ten}-error">The last number for 10 km must be at least the first`),
    );
    assert.match(bad.body, new RegExp(`id="f-last_${ten}"[^>]*value="50"`));
    assert.match(bad.body, new RegExp(`href="#f-last_${ten}"`), 'the summary links to the field');
    assert.doesNotMatch(bad.body, new RegExp(`f-first_${five}-error`), 'a good range has no message');
    const overlap = await owner.post(
      `${url}/bib-ranges`,
      rangeFields(race, [
        ['1', '50'],
        ['50', '60'],
      ]),
    );
    assert.equal(overlap.statusCode, 422);
    assert.match(textOf(overlap.body), /5 km's range overlaps 10 km's \(1–50\)/);
    assert.equal((await listAuditEvents(db(), organizationId, { limit: 100 })).rows.length, 0);

    const good = await owner.post(
      `${url}/bib-ranges`,
      rangeFields(race, [
        ['1', '2999'],
        ['5000', '6999'],
      ]),
    );
    assert.equal(good.statusCode, 303, good.body.slice(0, 300));
    assert.equal(locationOf(good), `${url}/start-list?done=ranges`);
    const shown = await owner.get(locationOf(good));
    assert.match(textOf(shown.body), /The bib ranges were saved/);
    assert.match(shown.body, new RegExp(`id="f-first_${five}"[^>]*value="5000"`));
    const [entry] = (await listAuditEvents(db(), organizationId, { limit: 1 })).rows;
    assert.equal(entry!.action, 'event.bib_ranges_changed');
    assert.equal(entry!.targetId, race.event.id);
    assert.equal(entry!.ip, owner.ip);
    assert.deepEqual(entry!.details, {
      ranges: [
        { ticket_type: '10 km', first: 1, last: 2999 },
        { ticket_type: '5 km', first: 5000, last: 6999 },
      ],
    });
  });

  test('assigning: numbers shown, a full range reported, audited; a viewer reads without controls', async () => {
    const race = await newRace('Assign Run');
    const url = `/events/${race.event.id}`;
    await seedRunners(db(), race.event, race.ticketTypes[0]!, [
      { name: 'Akello Grace', answers: { tshirt: 'M' } },
      { name: 'Okello James', answers: { tshirt: 'L' } },
      { name: 'Namuli Ruth', answers: { tshirt: 'M' } },
    ]);
    await owner.get(`${url}/start-list`);
    await owner.post(
      `${url}/bib-ranges`,
      rangeFields(race, [
        ['1', '2'],
        ['5000', '6999'],
      ]),
    );
    const res = await owner.post(`${url}/bibs/assign`);
    assert.equal(res.statusCode, 303);
    assert.equal(locationOf(res), `${url}/start-list?done=assigned&given=2`);
    const text = textOf((await owner.get(locationOf(res))).body);
    assert.match(text, /Gave 2 new bib numbers/);
    assert.match(text, /1 runner of 10 km without a number, and its range has 0 left\. Widen the range/);
    assert.match(text, /1 Akello Grace 10 km/);
    assert.match(text, /2 Okello James 10 km/);
    assert.match(text, /None Namuli Ruth 10 km/);
    assert.match(text, /T-shirt size T-shirt size 10 km 5 km All S 0 0 0 M 2 0 2 L 1 0 1/);
    const [entry] = (await listAuditEvents(db(), organizationId, { limit: 1 })).rows;
    assert.equal(entry!.action, 'event.bibs_assigned');
    assert.equal((entry!.details as { assigned: number }).assigned, 2);

    const again = await owner.post(`${url}/bibs/assign`);
    assert.equal(locationOf(again), `${url}/start-list?done=assigned&given=0`);

    const seen = await viewer.get(`${url}/start-list`);
    assert.equal(seen.statusCode, 200);
    assert.match(textOf(seen.body), /1 Akello Grace/);
    assert.doesNotMatch(seen.body, /Assign bib numbers<\/button>|Save ranges/);
    assert.equal((await viewer.post(`${url}/bibs/assign`)).statusCode, 403);
  });

  test('a hundred runners a page, then the next by a link', async () => {
    const race = await newRace('Pages Run');
    const url = `/events/${race.event.id}/start-list`;
    await seedRunners(
      db(),
      race.event,
      race.ticketTypes[1]!,
      Array.from({ length: 130 }, (_, i) => ({ name: `Runner ${String(i).padStart(3, '0')}` })),
    );
    const first = await owner.get(url);
    assert.equal((first.body.match(/<td data-label="Name">/g) ?? []).length, 100);
    const next = /href="([^"]+)#runners">Next page/.exec(first.body)?.[1]?.replace(/&amp;/g, '&');
    assert.ok(next, 'a next page link');
    const second = await owner.get(next);
    assert.equal((second.body.match(/<td data-label="Name">/g) ?? []).length, 30);
    assert.match(textOf(second.body), /Runner 100 .*Runner 129/);
    assert.doesNotMatch(second.body, /Next page/);
    assert.match(second.body, /First page/);
    assert.match(textOf(second.body), /Runners \(continued\)/);
    assert.doesNotMatch(second.body, /Bib numbers per ticket type/, 'the counts are on the first page only');
  });

  test('the CSV download: an attachment, UTF-8 with a BOM, every runner', async () => {
    const race = await newRace('CSV Run');
    await seedRunners(db(), race.event, race.ticketTypes[0]!, [
      { name: 'Müller, Anna', answers: { tshirt: 'S' } },
      { name: '@risky', answers: { tshirt: 'M' } },
    ]);
    const res = await owner.get(`/events/${race.event.id}/start-list.csv`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.match(
      String(res.headers['content-disposition']),
      /^attachment; filename="csv-run-[a-z0-9]+-start-list\.csv"$/,
    );
    assert.equal(res.body.charCodeAt(0), 0xfeff, 'the UTF-8 byte order mark');
    const lines = res.body.slice(1).trimEnd().split('\r\n');
    assert.deepEqual(
      lines.map((l) => l.replace(/T[0-9A-F]{12}$/, 'CODE')),
      [
        'Bib,Name,Ticket type,Age on race day,T-shirt size,Order code',
        ",'@risky,10 km,,M,CODE",
        ',"Müller, Anna",10 km,,S,CODE',
      ],
    );
    assert.equal((await viewer.get(`/events/${race.event.id}/start-list.csv`)).statusCode, 200);
  });
});
