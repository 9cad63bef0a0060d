// Bib ranges and assignment, the start list's order and pages, answer totals and the CSV, on the
// service's own database (PGlite, or PostgreSQL with TEST_DATABASE_URL).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import {
  bibProgress,
  checkRanges,
  giveBibNumbers,
  lockEventBibs,
  writeBibRanges,
  type BibRange,
} from '../../src/startlists/bib-numbers.ts';
import { ageOn, findRaceEvent, localDate, type RaceEvent } from '../../src/startlists/race-event.ts';
import { csvRow, csvText, type CsvValue } from '../../src/platform/csv.ts';
import { startListCsv } from '../../src/startlists/start-list-csv.ts';
import {
  answerTotals,
  decodeStartListCursor,
  encodeStartListCursor,
  readStartList,
  walkStartList,
} from '../../src/startlists/start-list.ts';
import { bibs } from '../../src/startlists/startlists.schema.ts';
import { makeEvent, makePartner, startHarness, type Harness, type TestPartner } from '../helpers/harness.ts';
import { seedRunners } from './seed-runners.ts';

let h: Harness;
let partner: TestPartner;

before(async () => {
  h = await startHarness();
  partner = await makePartner(h);
});
after(() => h.close());

const SIZES = {
  key: 'tshirt',
  label: 'T-shirt size',
  type: 'select' as const,
  required: true,
  options: ['S', 'M', 'L'],
  help: '',
};

async function newRace(): Promise<RaceEvent> {
  const event = await makeEvent(h, partner, { additional_questions: [SIZES] });
  return (await findRaceEvent(h.service.ctx.database.db, partner.organizationId, event.id))!;
}

async function setRanges(race: RaceEvent, ranges: [number, number][]) {
  const list: BibRange[] = ranges.map(([first, last], i) => ({
    ticketTypeId: race.ticketTypes[i]!.id,
    first,
    last,
  }));
  await h.service.ctx.database.transaction(async (tx) => {
    await lockEventBibs(tx, race.event.id);
    await writeBibRanges(tx, race, list, h.clock.now());
  });
}

function assign(race: RaceEvent) {
  return h.service.ctx.database.transaction(async (tx) => {
    await lockEventBibs(tx, race.event.id);
    return giveBibNumbers(tx, race, h.clock.now());
  });
}

async function numbersOf(race: RaceEvent): Promise<Map<string, number>> {
  const rows = await h.service.ctx.database.db
    .select({ id: bibs.registrationId, number: bibs.number })
    .from(bibs)
    .where(sql`${bibs.eventId} = ${race.event.id}`);
  return new Map(rows.map((r) => [r.id, r.number]));
}

describe('age on race day', () => {
  test('counts whole years to the race day in the event time zone', () => {
    assert.equal(ageOn('2026-06-02', '2000-06-02'), 26, 'birthday on race day');
    assert.equal(ageOn('2026-06-02', '2000-06-03'), 25, 'birthday the day after');
    assert.equal(ageOn('2026-02-28', '2008-02-29'), 17, 'leap-day birthday not yet reached');
    assert.equal(ageOn('2026-03-01', '2008-02-29'), 18, 'a year older on 1 March');
    assert.equal(ageOn('2026-06-02', null), null);
    assert.equal(ageOn('2026-06-02', '2027-01-01'), null, 'born after the race');
    // 22:30 UTC is already the next day in Kampala (UTC+3)
    assert.equal(localDate(new Date('2026-06-01T22:30:00Z'), 'Africa/Kampala'), '2026-06-02');
    assert.equal(localDate(new Date('2026-06-01T22:30:00Z'), 'America/Lima'), '2026-06-01');
  });
});

describe('bib ranges', () => {
  test('each wrong field gets its own message; a good set passes', async () => {
    const race = await newRace();
    const [ten, five] = race.ticketTypes.map((t) => t.id) as [string, string];
    const check = (a: [string, string], b: [string, string]) =>
      checkRanges(race, [
        { ticketTypeId: ten, first: a[0], last: a[1] },
        { ticketTypeId: five, first: b[0], last: b[1] },
      ]);
    const errorsOf = (r: ReturnType<typeof check>) => (r.ok ? {} : r.errors);
    assert.deepEqual(check(['1', '2999'], ['5000', '6999']), {
      ok: true,
      ranges: [
        { ticketTypeId: ten, first: 1, last: 2999 },
        { ticketTypeId: five, first: 5000, last: 6999 },
      ],
    });
    assert.deepEqual(check(['', ''], ['', '']), { ok: true, ranges: [] });
    assert.match(errorsOf(check(['10', '5'], ['', '']))[`last_${ten}`]!, /at least the first \(10\)/);
    assert.match(
      errorsOf(check(['1', '100'], ['100', '200']))[`first_${five}`]!,
      /overlaps 10 km's \(1–100\)/,
    );
    assert.match(errorsOf(check(['0', '5'], ['', '']))[`first_${ten}`]!, /from 1 to 999999/);
    assert.match(errorsOf(check(['1', '1000000'], ['', '']))[`last_${ten}`]!, /from 1 to 999999/);
    assert.match(errorsOf(check(['-3', '5'], ['', '']))[`first_${ten}`]!, /whole number/);
    assert.match(errorsOf(check(['1.5', '5'], ['', '']))[`first_${ten}`]!, /whole number/);
    assert.match(errorsOf(check(['1', ''], ['', '']))[`last_${ten}`]!, /Enter the last number for 10 km/);
  });
});

describe('assigning bib numbers', () => {
  test('numbers per range in registration order; a full range is reported, not overflowed', async () => {
    const race = await newRace();
    const db = h.service.ctx.database.db;
    const [ten, five] = race.ticketTypes as [RaceEvent['ticketTypes'][0], RaceEvent['ticketTypes'][0]];
    const tenIds = await seedRunners(db, race.event, ten, [
      { name: 'Amina' },
      { name: 'Brian' },
      { name: 'Cissy' },
      { name: 'Denis' },
    ]);
    const [fiveId] = await seedRunners(db, race.event, five, [
      { name: 'Esther' },
      { name: 'Pending Pat', orderStatus: 'pending', status: 'pending' },
      { name: 'Refunded Rita', orderStatus: 'refunded' },
    ]);
    await setRanges(race, [
      [1, 3],
      [5000, 5001],
    ]);
    const first = await assign(race);
    assert.deepEqual(
      first.map((r) => [r.assigned, r.left, r.reason]),
      [
        [3, 1, 'range_full'],
        [1, 0, null],
      ],
    );
    const numbers = await numbersOf(race);
    assert.deepEqual(
      tenIds.map((id) => numbers.get(id)),
      [1, 2, 3, undefined],
    );
    assert.equal(numbers.get(fiveId!), 5000);
    assert.equal(numbers.size, 4, 'no number for a pending or refunded order');
    assert.deepEqual(
      (await bibProgress(db, race)).map((p) => [p.runners, p.numbered, p.free]),
      [
        [4, 3, 0],
        [1, 1, 1],
      ],
    );

    const again = await assign(race);
    assert.deepEqual(
      again.map((r) => r.assigned),
      [0, 0],
    );
    assert.deepEqual(await numbersOf(race), numbers, 'running again changes nothing');

    // The 10 km range moves past numbers the 5 km range now covers: no number is given twice.
    await setRanges(race, [
      [5000, 5003],
      [1, 10],
    ]);
    const [newFive] = await seedRunners(db, race.event, five, [{ name: 'Fred' }]);
    await assign(race);
    const after = await numbersOf(race);
    assert.equal(after.get(tenIds[3]!), 5001, 'the next free number of the new range, 5000 is taken');
    assert.equal(after.get(newFive!), 4, '1 to 3 stay with the 10 km runners');
    for (const [id, number] of numbers) assert.equal(after.get(id), number, 'numbers given never change');
    assert.equal(new Set(after.values()).size, after.size);
  });

  test('two assignments at once give each runner one number and no number twice', async () => {
    const race = await newRace();
    const db = h.service.ctx.database.db;
    await seedRunners(
      db,
      race.event,
      race.ticketTypes[0]!,
      Array.from({ length: 300 }, (_, i) => ({ name: `Runner ${i}` })),
    );
    await setRanges(race, [[1, 1000]]);
    const results = await Promise.all([assign(race), assign(race), assign(race)]);
    const given = results.map((r) => r[0]!.assigned).sort((a, b) => b - a);
    assert.deepEqual(given, [300, 0, 0], 'one run numbered them all, the others found nothing to do');
    const numbers = await numbersOf(race);
    assert.equal(numbers.size, 300);
    assert.deepEqual(
      [...numbers.values()].sort((a, b) => a - b),
      Array.from({ length: 300 }, (_, i) => i + 1),
    );
  });

  test('the unique index refuses a second registration with a number in the event', async () => {
    const race = await newRace();
    const db = h.service.ctx.database.db;
    const [a, b] = await seedRunners(db, race.event, race.ticketTypes[0]!, [{ name: 'A' }, { name: 'B' }]);
    const row = (registrationId: string) => ({
      registrationId,
      eventId: race.event.id,
      ticketTypeId: race.ticketTypes[0]!.id,
      number: 7,
      assignedAt: h.clock.now(),
    });
    await db.insert(bibs).values(row(a!));
    await assert.rejects(db.insert(bibs).values(row(b!)));
  });
});

describe('the start list', () => {
  test('by ticket type, then bib, then name; pages by keyset; totals; age', async () => {
    const race = await newRace();
    const db = h.service.ctx.database.db;
    const [ten, five] = race.ticketTypes as [RaceEvent['ticketTypes'][0], RaceEvent['ticketTypes'][0]];
    await seedRunners(db, race.event, five, [
      { name: 'Zed', answers: { tshirt: 'S' } },
      { name: 'Yasmin', answers: { tshirt: 'M' } },
    ]);
    await seedRunners(db, race.event, ten, [
      { name: 'Kato', dateOfBirth: '1990-01-15', answers: { tshirt: 'L' } },
      { name: 'Akello', answers: { tshirt: 'L' } },
    ]);
    await setRanges(race, [[1, 1]]);
    await assign(race); // Kato registered first: bib 1; Akello waits (range full)
    await seedRunners(db, race.event, ten, [{ name: 'Babirye', answers: { tshirt: 'M' } }]);

    const expected = [
      ['10 km', 1, 'Kato'],
      ['10 km', null, 'Akello'],
      ['10 km', null, 'Babirye'],
      ['5 km', null, 'Yasmin'],
      ['5 km', null, 'Zed'],
    ];
    const all = [];
    for await (const row of walkStartList(db, race, 2)) all.push(row);
    assert.deepEqual(
      all.map((r) => [r.ticketTypeName, r.bib, r.participantName]),
      expected,
    );
    const raceDay = localDate(race.event.startsAt, race.event.timezone);
    assert.equal(all[0]!.age, ageOn(raceDay, '1990-01-15'));
    assert.equal(all[1]!.age, null);

    // Pages of 2 through a cursor that went into a link and back.
    const seen = [];
    let cursor = null;
    do {
      const page = await readStartList(db, race, cursor, 2);
      assert.ok(page.rows.length <= 2);
      seen.push(...page.rows.map((r) => r.participantName));
      cursor = page.next ? decodeStartListCursor(encodeStartListCursor(page.next)) : null;
      if (page.next) assert.ok(cursor, 'the cursor survives its link');
    } while (cursor);
    assert.deepEqual(
      seen,
      expected.map((e) => e[2]),
    );
    const last = await readStartList(db, race, null, 5);
    assert.equal(last.next, null, 'no next page after exactly a full page');
    assert.equal(decodeStartListCursor('not a cursor'), null);

    const [sizes] = await answerTotals(db, race);
    assert.equal(sizes!.questionKey, 'tshirt');
    assert.deepEqual(Object.fromEntries(sizes!.counts.get(ten.id)!), { L: 2, M: 1 });
    assert.deepEqual(Object.fromEntries(sizes!.counts.get(five.id)!), { S: 1, M: 1 });
  });
});

/** One cell as the file writes it. */
const csvCell = (value: CsvValue) => csvRow([value]).slice(0, -2);

describe('the CSV', () => {
  test('quotes as RFC 4180 and defuses spreadsheet formulas', () => {
    assert.equal(csvCell('plain'), 'plain');
    assert.equal(csvCell('Okello, James'), '"Okello, James"');
    assert.equal(csvCell('say "hi"'), '"say ""hi"""');
    assert.equal(csvCell('two\nlines'), '"two\nlines"');
    assert.equal(csvCell('=HYPERLINK("http://x")'), `"'=HYPERLINK(""http://x"")"`);
    assert.equal(csvCell('+256700'), "'+256700");
    assert.equal(csvCell('-1'), "'-1");
    assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
    assert.equal(csvCell(42), '42');
    assert.equal(csvCell(null), '');
  });

  test('a phone number stays text with its leading 0; anything else kept as text is guarded', () => {
    assert.equal(csvCell(csvText('0772123456')), '"=""0772123456"""');
    assert.equal(csvCell(csvText('[erased]')), '[erased]');
    assert.equal(csvCell(csvText('=1+1')), "'=1+1");
    assert.equal(csvCell(csvText('077"2')), '"077""2"');
  });

  test('the whole list, BOM first, in the start list order', async () => {
    const race = await newRace();
    const db = h.service.ctx.database.db;
    await seedRunners(db, race.event, race.ticketTypes[0]!, [
      { name: '=cmd|calc', answers: { tshirt: 'M' } },
      { name: 'Nakato Müller', answers: { tshirt: 'S' }, dateOfBirth: '2000-01-01' },
    ]);
    let text = '';
    for await (const chunk of startListCsv(race, walkStartList(db, race))) text += chunk;
    assert.ok(text.startsWith('\uFEFFBib,Name,Ticket type,Age on race day,T-shirt size,Order code\r\n'));
    const lines = text.slice(1).trimEnd().split('\r\n');
    assert.equal(lines.length, 3);
    assert.match(lines[1]!, /^,'=cmd\|calc,10 km,,M,T[0-9A-F]{12}$/);
    assert.match(lines[2]!, /^,Nakato Müller,10 km,\d+,S,T[0-9A-F]{12}$/);
  });
});
