// The per-runner export of an event, as CSV and as an Excel workbook: one row per paid runner with
// plain headers, a column per question, the bib, the buyer, what they paid in major units and when
// they registered on the event's clock; accents kept (a BOM in the CSV), phone numbers kept as text,
// formulas neutralised; buyers' email and phone only for roles that see them; every download
// audited (one cut short too); developers refused; another organization's event the same 404 as a
// missing one; the pickup list.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { strFromU8, unzipSync } from 'fflate';
import type { FastifyRequest } from 'fastify';
import { audited } from '../../src/app/exports.ts';
import { listAuditEvents } from '../../src/audit/audit-log.ts';
import { findRaceEvent, type RaceEvent } from '../../src/startlists/race-event.ts';
import { makeEvent, makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { seedRunners } from '../startlists/seed-runners.ts';
import { Agent, makeMember, signIn, textOf } from './app-helpers.ts';

let h: Harness;
let organizationId: string;
let owner: Agent;
let viewer: Agent;
let developer: Agent;
let race: RaceEvent;
let theirs: RaceEvent;

const db = () => h.service.ctx.database.db;

const HEADERS = [
  'Order',
  'Runner',
  'Ticket type',
  'Distance (km)',
  'Date of birth',
  'T-shirt size',
  'Club',
  'Bib',
  'Buyer name',
  'Buyer email',
  'Buyer phone',
  'Paid (UGX)',
  'Registered at (Africa/Kampala)',
];

before(async () => {
  h = await startHarness();
  const partner = await makePartner(h);
  organizationId = partner.organizationId;
  owner = await signIn(h, await makeMember(h, organizationId, 'owner'));
  viewer = await signIn(h, await makeMember(h, organizationId, 'viewer'));
  developer = await signIn(h, await makeMember(h, organizationId, 'developer'));
  const event = await makeEvent(h, partner, {
    name: 'Entebbe Lakeside Run',
    additional_questions: [
      { key: 'tshirt', label: 'T-shirt size', type: 'select', required: true, options: ['S', 'M'], help: '' },
      { key: 'club', label: 'Club', type: 'text', required: false, options: [], help: '' },
    ],
  } as never);
  race = (await findRaceEvent(db(), organizationId, event.id))!;
  const [tenKm, fiveKm] = race.ticketTypes;
  // registered 2026-03-14 04:12 UTC: 07:12 in Kampala
  await seedRunners(
    db(),
    race.event,
    tenKm!,
    [
      {
        name: 'Nakalembe Ssekitoleko-Müller',
        dateOfBirth: '1990-05-01',
        answers: { tshirt: 'M', club: 'Entebbe Striders' },
        buyer: { name: 'Sarah Nakato', email: 'sarah@example.org', phone: '256772123456' },
        feeMinor: 1500,
      },
    ],
    new Date('2026-03-14T04:12:00Z'),
  );
  await seedRunners(
    db(),
    race.event,
    fiveKm!,
    [
      { name: '=HYPERLINK("http://evil")', answers: { tshirt: 'S', club: '@SUM(A1)' } },
      { name: 'Unpaid Runner', orderStatus: 'pending' },
    ],
    new Date('2026-03-15T10:00:00Z'),
  );
  // a bib for the 10 km runner, through the start list's own forms
  await owner.post(`/events/${race.event.id}/bib-ranges`, {
    [`first_${tenKm!.id}`]: '101',
    [`last_${tenKm!.id}`]: '199',
    [`first_${fiveKm!.id}`]: '',
    [`last_${fiveKm!.id}`]: '',
  });
  assert.equal((await owner.post(`/events/${race.event.id}/bibs/assign`)).statusCode, 303);

  const other = await makePartner(h);
  const otherEvent = await makeEvent(h, other, { name: 'Their Run' });
  theirs = (await findRaceEvent(db(), other.organizationId, otherEvent.id))!;
  await seedRunners(db(), theirs.event, theirs.ticketTypes[0]!, [{ name: 'Not Yours' }]);
});
after(() => h.close());

/** RFC 4180 lines of a small file without line breaks in cells, split into cells. */
function parseCsv(body: string): string[][] {
  const rows = body
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split('\r\n');
  return rows.map((line) => {
    const cells: string[] = [];
    const re = /("(?:[^"]|"")*"|[^,]*)(,|$)/g;
    for (let m = re.exec(line); m && m.index < line.length; m = re.exec(line)) {
      const raw = m[1]!;
      cells.push(raw.startsWith('"') ? raw.slice(1, -1).replace(/""/g, '"') : raw);
      if (m[2] === '') break;
    }
    return cells;
  });
}

async function lastEntry() {
  return (await listAuditEvents(db(), organizationId, { limit: 1 })).rows[0]!;
}

/** The workbook's one sheet as rows of cell text (shared strings resolved), with each cell's type. */
function readSheet(body: Buffer): { text: string[][]; types: string[][] } {
  const files = unzipSync(new Uint8Array(body));
  const sheet = strFromU8(files['xl/worksheets/sheet1.xml']!);
  const shared = files['xl/sharedStrings.xml']
    ? [...strFromU8(files['xl/sharedStrings.xml']).matchAll(/<si>(?:<t[^>]*>([^<]*)<\/t>)?<\/si>/g)].map(
        (m) => m[1] ?? '',
      )
    : [];
  const text: string[][] = [];
  const types: string[][] = [];
  for (const row of sheet.matchAll(/<row[^>]*>(.*?)<\/row>/g)) {
    const cells = [...row[1]!.matchAll(/<c ([^>]*?)(?:\/>|>(.*?)<\/c>)/g)];
    text.push(
      cells.map((c) => {
        const type = /t="([^"]+)"/.exec(c[1]!)?.[1] ?? 'n';
        const inner = c[2] ?? '';
        if (type === 's') return shared[Number(/<v>([^<]*)<\/v>/.exec(inner)?.[1])] ?? '';
        if (type === 'inlineStr') return /<t[^>]*>([^<]*)<\/t>/.exec(inner)?.[1] ?? '';
        return /<v>([^<]*)<\/v>/.exec(inner)?.[1] ?? '';
      }),
    );
    types.push(cells.map((c) => /t="([^"]+)"/.exec(c[1]!)?.[1] ?? 'n'));
  }
  return { text, types };
}

const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

describe('the runners CSV', () => {
  test('one row per paid runner, plain headers, local times, major units, phones as text', async () => {
    const res = await owner.get(`/events/${race.event.id}/runners.csv`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.match(
      String(res.headers['content-disposition']),
      /^attachment; filename="entebbe-lakeside-run-[a-z0-9]+-runners\.csv"$/,
    );
    assert.equal(res.body.charCodeAt(0), 0xfeff, 'the UTF-8 byte order mark');
    const [header, ...rows] = parseCsv(res.body);
    assert.deepEqual(header, HEADERS);
    assert.equal(rows.length, 2, 'the unpaid registration is left out');
    const [ten, five] = rows;
    assert.match(ten![0]!, /^T[0-9A-F]{12}$/);
    assert.deepEqual(ten!.slice(1), [
      'Nakalembe Ssekitoleko-Müller',
      '10 km',
      '10',
      '1990-05-01',
      'M',
      'Entebbe Striders',
      '101',
      'Sarah Nakato',
      'sarah@example.org',
      '="0772123456"',
      '31,500',
      '2026-03-14 07:12',
    ]);
    // formulas in names and answers stay text; the free ticket paid nothing
    assert.deepEqual(five!.slice(1), [
      `'=HYPERLINK("http://evil")`,
      '5 km',
      '5',
      '',
      'S',
      "'@SUM(A1)",
      '',
      `'=HYPERLINK("http://evil")`,
      'buyer@example.org',
      "'+256700000000",
      '0',
      '2026-03-15 13:00',
    ]);
    const entry = await lastEntry();
    assert.equal(entry.action, 'event.runners_exported');
    assert.equal(entry.targetType, 'event');
    assert.equal(entry.targetId, race.event.id);
    assert.equal(entry.ip, owner.ip);
    assert.deepEqual(entry.details, {
      file: /filename="([^"]+)"/.exec(String(res.headers['content-disposition']))![1],
      rows: 2,
      buyer_contacts: true,
    });
  });

  test("a viewer's file has no buyers' email or phone columns; a developer is refused", async () => {
    const res = await viewer.get(`/events/${race.event.id}/runners.csv`);
    assert.equal(res.statusCode, 200);
    const [header, ten] = parseCsv(res.body);
    assert.deepEqual(
      header,
      HEADERS.filter((h) => h !== 'Buyer email' && h !== 'Buyer phone'),
    );
    assert.doesNotMatch(res.body, /sarah@example\.org|0772123456/);
    assert.equal(ten![8], 'Sarah Nakato');
    assert.equal((await lastEntry()).details.buyer_contacts, false);

    const before = (await listAuditEvents(db(), organizationId, { limit: 50 })).rows.length;
    for (const path of ['runners.csv', 'runners.xlsx', 'start-list.csv', 'pickup-list']) {
      const refused = await developer.get(`/events/${race.event.id}/${path}`);
      assert.equal(refused.statusCode, 403, path);
      assert.match(refused.body, /Your role cannot do this/);
    }
    assert.equal((await developer.get('/orders.csv')).statusCode, 403);
    assert.equal((await listAuditEvents(db(), organizationId, { limit: 50 })).rows.length, before);
    // the pages offer no download to a role without the permission
    const page = await developer.get(`/events/${race.event.id}`);
    assert.doesNotMatch(page.body, /runners\.csv|runners\.xlsx|pickup-list/);
  });

  test("another organization's event, a missing one and a malformed id are the same 404", async () => {
    for (const id of [theirs.event.id, 'evt_ZZZZZZZZZZZZZZZZZZZZZZZZ', 'not-an-event']) {
      for (const file of ['runners.csv', 'runners.xlsx']) {
        const res = await owner.get(`/events/${id}/${file}`);
        assert.equal(res.statusCode, 404, `${id} ${file}`);
        assert.doesNotMatch(res.body, /Not Yours/);
      }
    }
  });
});

describe('the runners workbook', () => {
  test('the same rows, phones as text cells, amounts as numbers, headers in row one', async () => {
    const res = await owner.get(`/events/${race.event.id}/runners.xlsx`);
    assert.equal(res.statusCode, 200);
    assert.equal(
      res.headers['content-type'],
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    assert.match(
      String(res.headers['content-disposition']),
      /^attachment; filename="entebbe-lakeside-run-[a-z0-9]+-runners\.xlsx"$/,
    );
    const { text, types } = readSheet(res.rawPayload);
    assert.deepEqual(text[0]!.map(unescape), HEADERS);
    assert.equal(text.length, 3);
    const phone = HEADERS.indexOf('Buyer phone');
    const paid = HEADERS.indexOf('Paid (UGX)');
    const bib = HEADERS.indexOf('Bib');
    assert.equal(text[1]![phone], '0772123456', 'the leading 0 is kept');
    assert.notEqual(types[1]![phone], 'n', 'the phone is a string cell');
    assert.equal(text[1]![paid], '31500');
    assert.equal(types[1]![paid], 'n', 'the amount is a number');
    assert.equal(text[1]![bib], '101');
    assert.equal(text[1]![1], 'Nakalembe Ssekitoleko-Müller');
    assert.equal(text[1]![HEADERS.indexOf('Registered at (Africa/Kampala)')], '2026-03-14 07:12');
    // a name that looks like a formula is a string cell, never a formula
    assert.equal(unescape(text[2]![1]!), '=HYPERLINK("http://evil")');
    assert.notEqual(types[2]![1], 'n');
    assert.doesNotMatch(
      strFromU8(unzipSync(new Uint8Array(res.rawPayload))['xl/worksheets/sheet1.xml']!),
      /<f>/,
    );
    const entry = await lastEntry();
    assert.equal(entry.action, 'event.runners_exported');
    assert.equal((entry.details as { file: string }).file.endsWith('.xlsx'), true);
    assert.equal((entry.details as { rows: number }).rows, 2);
  });
});

describe('the audit entry of a download', () => {
  test('a download cut short records the rows that left and that it did not end', async () => {
    const request = {
      appSession: { organizationId, member: { id: null, email: 'cut@example.org' }, role: 'owner' },
      ip: '10.1.2.3',
    } as unknown as FastifyRequest;
    async function* rows() {
      yield* ['a', 'b', 'c'];
    }
    const record = {
      action: 'event.runners_exported' as const,
      target: { type: 'event' as const, id: race.event.id },
      file: 'cut.csv',
      contacts: true,
    };
    const download = audited(h.service.ctx, request, record, rows());
    assert.equal((await download.next()).value, 'a');
    await download.return(undefined); // what the response stream does when the client goes away
    const entry = await lastEntry();
    assert.equal(entry.actorLabel, 'cut@example.org');
    assert.deepEqual(entry.details, { file: 'cut.csv', rows: 1, buyer_contacts: true, complete: false });
  });
});

describe('the start list CSV and the pages', () => {
  test('the start list download is audited too; the audit log shows exports in words', async () => {
    const res = await viewer.get(`/events/${race.event.id}/start-list.csv`);
    assert.equal(res.statusCode, 200);
    const entry = await lastEntry();
    assert.equal(entry.action, 'event.start_list_exported');
    assert.deepEqual(entry.details, {
      file: /filename="([^"]+)"/.exec(String(res.headers['content-disposition']))![1],
      rows: 2,
      buyer_contacts: false,
    });
    const log = textOf((await owner.get('/audit-log')).body);
    assert.match(
      log,
      /downloaded an event's start list: Event Entebbe Lakeside Run File: entebbe-lakeside-run-\w+-start-list\.csv Rows: 2 Buyers' email and phone: no/,
    );
    assert.match(
      log,
      /downloaded an event's runners: Event Entebbe Lakeside Run File: [\w-]+-runners\.xlsx Rows: 2 Buyers' email and phone: yes/,
    );
  });

  test('the event page says what the export holds and offers it; a viewer is told what is left out', async () => {
    const own = textOf((await owner.get(`/events/${race.event.id}`)).body);
    assert.match(own, /One row per runner of a paid order/);
    assert.match(own, /the buyer's name, email and phone/);
    const seen = await viewer.get(`/events/${race.event.id}`);
    assert.match(seen.body, /href="\/events\/evt_\w+\/runners\.xlsx"/);
    assert.match(textOf(seen.body), /your role does not see buyers' email and phone/);
  });

  test('the pickup list: a section per ticket type, by bib or by name, one row per runner', async () => {
    const byBib = await viewer.get(`/events/${race.event.id}/pickup-list`);
    assert.equal(byBib.statusCode, 200);
    const text = textOf(byBib.body);
    assert.match(text, /10 km \(1 runner\) .*101 Nakalembe Ssekitoleko-Müller M T[0-9A-F]{12}/);
    assert.match(text, /5 km \(1 runner\) .*None =HYPERLINK\("http:\/\/evil"\) S/);
    assert.doesNotMatch(text, /Unpaid Runner|Entebbe Striders/, 'paid runners; select answers only');
    const byName = await viewer.get(`/events/${race.event.id}/pickup-list?order=name`);
    assert.match(byName.body, /aria-current="page"[^>]*>Name|href="[^"]*order=name" aria-current="page"/);
    assert.equal((await viewer.get(`/events/${race.event.id}/pickup-list?order=shoe`)).statusCode, 200);
    assert.equal((await owner.get(`/events/${theirs.event.id}/pickup-list`)).statusCode, 404);
  });
});
