// Saving bib ranges and assigning numbers are actions (src/startlists/actions/) that the organizer
// app calls: each write is one audit entry by the member, under the event's bib lock. A refused
// action (a bad range, a ticket type of another event, another organization's event) changes
// nothing and records nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { OPERATOR_LABEL, listAuditEvents } from '../../src/audit/audit-log.ts';
import { assignBibs } from '../../src/startlists/actions/assign-bibs.ts';
import { saveBibRanges } from '../../src/startlists/actions/save-bib-ranges.ts';
import { listBibRanges } from '../../src/startlists/bib-numbers.ts';
import { findRaceEvent, type RaceEvent } from '../../src/startlists/race-event.ts';
import { makeMember, signIn, type Agent, type TestMember } from '../app/app-helpers.ts';
import { makeEvent, makePartner, startHarness, type Harness, type TestPartner } from '../helpers/harness.ts';
import { seedRunners } from './seed-runners.ts';

let h: Harness;
let partner: TestPartner;
let owner: TestMember;
let agent: Agent;

before(async () => {
  h = await startHarness();
  partner = await makePartner(h);
  owner = await makeMember(h, partner.organizationId, 'owner');
  agent = await signIn(h, owner);
});
after(() => h.close());

const db = () => h.service.ctx.database.db;

async function newRace(of: TestPartner = partner): Promise<RaceEvent> {
  const event = await makeEvent(h, of);
  const race = (await findRaceEvent(db(), of.organizationId, event.id))!;
  assert.ok(race.ticketTypes.length >= 2, 'two ticket types to number');
  return race;
}

/** The event's entries, oldest first. */
async function entriesOf(race: RaceEvent) {
  const { rows } = await listAuditEvents(db(), race.event.organizationId, { limit: 100 });
  return rows
    .filter((row) => row.targetId === race.event.id)
    .reverse()
    .map((row) => ({ action: row.action, details: row.details, actor: row.actorLabel }));
}

async function stateOf(race: RaceEvent) {
  return JSON.stringify([await entriesOf(race), await listBibRanges(db(), race.event.id)]);
}

function rangeFields(race: RaceEvent, ranges: [string, string][]) {
  return Object.fromEntries(
    race.ticketTypes.flatMap((t, i) => [
      [`first_${t.id}`, ranges[i]?.[0] ?? ''],
      [`last_${t.id}`, ranges[i]?.[1] ?? ''],
    ]),
  );
}

describe('bib actions from the organizer app', () => {
  test('saving ranges and assigning: one entry each, by the member', async () => {
    const race = await newRace();
    const [first, second] = race.ticketTypes;
    await seedRunners(db(), race.event, first!, [{ name: 'Atim Grace' }, { name: 'Opio Daniel' }]);
    const url = `/events/${race.event.id}`;
    await agent.get(`${url}/start-list`);
    const saved = await agent.post(
      `${url}/bib-ranges`,
      rangeFields(race, [
        [' 1 ', '1'],
        ['100', '199'],
      ]),
    );
    assert.equal(saved.statusCode, 303, saved.body.slice(0, 300));
    const assigned = await agent.post(`${url}/bibs/assign`);
    assert.equal(assigned.statusCode, 303);

    assert.deepEqual(await entriesOf(race), [
      {
        action: 'event.bib_ranges_changed',
        details: {
          ranges: [
            { ticket_type: first!.name, first: 1, last: 1 },
            { ticket_type: second!.name, first: 100, last: 199 },
          ],
        },
        actor: owner.email,
      },
      {
        action: 'event.bibs_assigned',
        details: {
          assigned: 1,
          ticket_types: [
            { ticket_type: first!.name, assigned: 1, without_number: 1 },
            { ticket_type: second!.name, assigned: 0, without_number: 0 },
          ],
        },
        actor: owner.email,
      },
    ]);
  });

  test('a bad or overlong range is a field error, and nothing is saved or recorded', async () => {
    const race = await newRace();
    const url = `/events/${race.event.id}`;
    await agent.get(`${url}/start-list`);
    const before = await stateOf(race);
    const [first] = race.ticketTypes;
    for (const ranges of [
      [['10', '5']],
      [
        ['1', '50'],
        ['50', '60'],
      ],
      [['1', '9'.repeat(25)]],
      [['1', '']],
    ] as [string, string][][]) {
      const res = await agent.post(`${url}/bib-ranges`, rangeFields(race, ranges));
      assert.equal(res.statusCode, 422, JSON.stringify(ranges));
    }
    const overlong = await agent.post(`${url}/bib-ranges`, rangeFields(race, [['1', '9'.repeat(25)]]));
    assert.match(overlong.body, new RegExp(`id="f-last_${first!.id}-error">Last number must be at most 20`));
    assert.equal(await stateOf(race), before);
  });
});

describe('the bib actions themselves', () => {
  test("another organization's event is not found; a ticket type of another event is refused", async () => {
    const race = await newRace();
    const ctx = h.service.ctx;
    const before = await stateOf(race);
    const stranger = await makeMember(h, (await makePartner(h)).organizationId, 'owner');
    const foreign = {
      actor: { memberId: stranger.memberId, label: stranger.email, ip: null },
      organizationId: stranger.organizationId,
    };
    const ranges = [{ ticketTypeId: race.ticketTypes[0]!.id, first: '1', last: '9' }];
    assert.deepEqual(await saveBibRanges(ctx, { ...foreign, eventId: race.event.id, ranges }), {
      refused: 'not_found',
    });
    assert.deepEqual(await assignBibs(ctx, { ...foreign, eventId: race.event.id }), { refused: 'not_found' });

    const other = await newRace();
    const mine = { actor: { memberId: owner.memberId, label: owner.email, ip: null } };
    const mixed = await saveBibRanges(ctx, {
      ...mine,
      organizationId: partner.organizationId,
      eventId: race.event.id,
      ranges: [...ranges, { ticketTypeId: other.ticketTypes[0]!.id, first: '20', last: '29' }],
    });
    assert.equal('refused' in mixed && mixed.refused, 'invalid');
    assert.equal(await stateOf(race), before);

    // The operator reaches any organization's event.
    const operator = { actor: { memberId: null, label: OPERATOR_LABEL, ip: null } };
    const saved = await saveBibRanges(ctx, { ...operator, eventId: race.event.id, ranges });
    assert.ok('done' in saved);
    assert.deepEqual(await listBibRanges(db(), race.event.id), [
      { ticketTypeId: race.ticketTypes[0]!.id, first: 1, last: 9 },
    ]);
    assert.equal((await entriesOf(race)).at(-1)!.actor, OPERATOR_LABEL);
  });
});
