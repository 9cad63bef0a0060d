// Check-in over HTTP: the roster each role receives (and what it never holds), the checker refused
// everywhere else in the app, the sync's idempotency on the device's ids, conflicts won by the
// earlier tap, the undo window, refusals, bad input refused whole, and CSRF on the JSON POST.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { listAuditEvents } from '../../src/audit/audit-log.ts';
import { checkIns } from '../../src/checkin/checkin.schema.ts';
import { MEMBER_ROLES, type MemberRole } from '../../src/members/roles.ts';
import { tickets } from '../../src/tickets/tickets.schema.ts';
import { makePartner, startHarness, type Harness, type TestPartner } from '../helpers/harness.ts';
import { registeredRoutes } from '../helpers/registered-routes.ts';
import { Agent, locationOf, makeMember, signIn, type TestMember } from '../app/app-helpers.ts';
import type { RaceEvent } from '../../src/startlists/race-event.ts';
import { addRunners, callJson, jsonOf, makeRace, sync } from './checkin-helpers.ts';

let h: Harness;
let mine: TestPartner;
let theirs: TestPartner;
let race: RaceEvent;
let theirRace: RaceEvent;
const agents = {} as Record<MemberRole, Agent>;
let checkerMember: TestMember;
let second: Agent;
/** registration ids of the race's runners */
let ids: string[];
let theirIds: string[];

const at = (offsetMs = 0) => new Date(h.clock.now().getTime() + offsetMs).toISOString();
const db = () => h.service.ctx.database.db;
const rowsOf = (registrationId: string) =>
  db().select().from(checkIns).where(eq(checkIns.registrationId, registrationId));

before(async () => {
  h = await startHarness();
  mine = await makePartner(h);
  theirs = await makePartner(h);
  race = await makeRace(h, mine);
  theirRace = await makeRace(h, theirs);
  for (const role of MEMBER_ROLES) {
    const member = await makeMember(h, mine.organizationId, role);
    if (role === 'checker') checkerMember = member;
    agents[role] = await signIn(h, member);
  }
  // every check-in page sets the agent's CSRF token (the page's form fields and data attribute)
  for (const role of ['owner', 'admin', 'checker'] as const)
    await agents[role].get(`/check-in/${race.event.id}`);
  second = await signIn(h, await makeMember(h, mine.organizationId, 'checker'));
  await second.get(`/check-in/${race.event.id}`);
  ids = await addRunners(h, race, [
    {
      name: 'Achieng Ruth',
      answers: {
        tshirt: 'M',
        emergency_contact_name: 'Okoth Paul',
        emergency_contact_phone: '+256772000111',
        club: 'Kampala Hash',
      },
      buyer: { name: 'Achieng Ruth', email: 'ruth.buyer@example.org', phone: '256701234567' },
    },
    { name: 'Babirye Joan', answers: { tshirt: 'S' } },
    { name: 'Cheptoo Mercy', answers: { tshirt: 'L' } },
    { name: 'Dembe Ivan', answers: { tshirt: 'L' } },
    { name: 'Ejang Sarah', answers: { tshirt: 'M' } },
    { name: 'Fiona Cancelled', status: 'cancelled', orderStatus: 'refunded' },
  ]);
  theirIds = await addRunners(h, theirRace, [{ name: 'Their Runner' }]);
});
after(() => h?.close());

describe('the roster', () => {
  for (const role of ['owner', 'admin', 'checker'] as const) {
    test(`${role} receives the runners with only what check-in needs`, async () => {
      const res = await callJson(agents[role], 'GET', `/check-in/${race.event.id}/roster`);
      assert.equal(res.statusCode, 200, res.body.slice(0, 300));
      const roster = jsonOf(res);
      assert.deepEqual(
        roster.runners.map((r: { name: string }) => r.name),
        ['Achieng Ruth', 'Babirye Joan', 'Cheptoo Mercy', 'Dembe Ivan', 'Ejang Sarah'],
      );
      const ruth = roster.runners[0];
      assert.deepEqual(Object.keys(ruth).sort(), [
        'bib',
        'code',
        'emergency_name',
        'emergency_phone',
        'id',
        'name',
        'scan',
        'shirt',
        'ticket_type_id',
        'ticket_void',
      ]);
      assert.equal(ruth.shirt, 'M');
      assert.equal(ruth.emergency_name, 'Okoth Paul');
      assert.equal(ruth.emergency_phone, '+256772000111');
      assert.match(ruth.code, /^[A-Z2-9]{8}$/);
      assert.equal(roster.runners[1].emergency_name, null);
      assert.deepEqual(roster.shirt, { label: 'T-shirt size', options: ['S', 'M', 'L'] });
      // nothing of the buyer, no other answer, no ticket token
      for (const secret of ['ruth.buyer@example.org', '701234567', 'Kampala Hash', 'buyer@example.org']) {
        assert.ok(!res.body.includes(secret), `${secret} is not in the roster`);
      }
      const [ticket] = await db().select().from(tickets).where(eq(tickets.registrationId, ids[0]!));
      assert.ok(ticket, 'the runner got a ticket when the roster was built');
      assert.ok(!res.body.includes(ticket.token), 'the ticket token is not in the roster');
    });
  }

  for (const role of ['viewer', 'developer'] as const) {
    test(`${role} may not check in: the roster and the page are 403`, async () => {
      for (const path of [`/check-in/${race.event.id}/roster`, `/check-in/${race.event.id}`, '/check-in']) {
        const res = await agents[role].get(path);
        assert.equal(res.statusCode, 403, path);
      }
    });
  }

  test("another organization's event is the same 404 as a missing one", async () => {
    for (const path of [
      `/check-in/${theirRace.event.id}/roster`,
      '/check-in/evt_ZZZZZZZZZZZZZZZZZZZZZZZZ/roster',
    ]) {
      assert.equal((await agents.checker.get(path)).statusCode, 404, path);
    }
    const res = await callJson(agents.checker, 'POST', `/check-in/${theirRace.event.id}/sync`, {
      check_ins: [{ id: randomUUID(), registration_id: theirIds[0], at: at() }],
      undos: [],
    });
    assert.equal(res.statusCode, 404);
    assert.equal((await rowsOf(theirIds[0]!)).length, 0);
  });

  test('the server search finds a runner by the buyer phone, which the roster never holds', async () => {
    const res = await callJson(agents.checker, 'GET', `/check-in/${race.event.id}/search?q=0701234567`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(jsonOf(res).registration_ids, [ids[0]]);
    const none = await callJson(agents.checker, 'GET', `/check-in/${race.event.id}/search?q=0709999999`);
    assert.deepEqual(jsonOf(none).registration_ids, []);
  });
});

describe('the checker role', () => {
  /** what a checker may reach besides check-in: signed-out pages, their account, signing out */
  const ALLOWED =
    /^(GET|POST) \/(check-in|sign-in|sign-out|account|invitations|password-reset|dev\/mailbox|assets|organizations\/switch)(\/|$)/;

  test('is refused on every other route of the app', async () => {
    const routes = registeredRoutes(h.service.app, '/').filter(
      (r) => !/^[A-Z]+ \/(admin\/v1|healthz|readyz)(\/|$)/.test(r) && !ALLOWED.test(r) && r !== 'GET /',
    );
    assert.ok(routes.length > 40, `${routes.length} routes`);
    const agent = agents.checker;
    await agent.get('/check-in');
    for (const route of routes) {
      const [method, path] = route.split(' ') as ['GET' | 'POST', string];
      const url = path.replace(
        /:(\w+)/g,
        (_m, name: string) => `${name.slice(0, 3)}_ZZZZZZZZZZZZZZZZZZZZZZZZ`,
      );
      const res = method === 'POST' ? await agent.post(url, {}) : await agent.get(url);
      assert.equal(res.statusCode, 403, `${route}: ${res.statusCode}`);
      assert.match(res.body, /Your role cannot do this/, route);
    }
  });

  test('signing in lands on the check-in list, whose nav offers only check-in and the account', async () => {
    const agent = new Agent(h);
    await agent.get('/sign-in');
    const res = await agent.post('/sign-in', {
      email: checkerMember.email,
      password: checkerMember.password,
    });
    assert.equal(locationOf(res), '/');
    const home = await agent.get('/');
    assert.equal(home.statusCode, 303);
    assert.equal(locationOf(home), '/check-in');
    const list = await agent.get('/check-in');
    assert.equal(list.statusCode, 200);
    assert.match(list.body, new RegExp(`href="/check-in/${race.event.id}"`));
    const nav = /<nav aria-label="Main">([\s\S]*?)<\/nav>/.exec(list.body)![1]!;
    const links = [...nav.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(links, ['/check-in', '/account']);
    assert.match(list.body, /Sign out/);
    assert.equal((await agent.get('/account')).statusCode, 200);
  });

  test('the members page and the invitation form offer the role with its description', async () => {
    const res = await agents.owner.get('/members');
    assert.match(res.body, /<option value="checker"/);
    assert.match(res.body, /Check-in volunteer<\/strong>: Race-day check-in only/);
    const invite = await agents.owner.post('/members/invitations', {
      email: 'volunteer@example.org',
      role: 'checker',
    });
    assert.ok(invite.statusCode < 400, invite.body.slice(0, 300));
    assert.match(
      (await agents.owner.get('/members')).body,
      /volunteer@example\.org<\/span>, as Check-in volunteer/,
    );
  });
});

describe('sync', () => {
  test('the same check-ins sent twice are written once and answered alike', async () => {
    const batch = {
      check_ins: [
        { id: randomUUID(), registration_id: ids[1], at: at(-5000) },
        { id: randomUUID(), registration_id: ids[2], at: at(-4000) },
      ],
      undos: [],
    };
    const first = await sync(agents.checker, race.event.id, batch);
    const again = await sync(agents.checker, race.event.id, batch);
    assert.deepEqual(again.check_ins, first.check_ins);
    assert.deepEqual(
      first.check_ins.map((c) => c.result),
      ['checked_in', 'checked_in'],
    );
    assert.equal((await rowsOf(ids[1]!)).length, 1);
    assert.equal((await rowsOf(ids[2]!)).length, 1);
    const roster = jsonOf(await callJson(agents.owner, 'GET', `/check-in/${race.event.id}/roster`));
    const states = roster.check_ins.filter((c: { registration_id: string }) =>
      [ids[1], ids[2]].includes(c.registration_id),
    );
    assert.equal(states.length, 2);
  });

  test('the same batch sent five times at once, and five volunteers at one runner at once: one live each', async () => {
    const [extra] = await addRunners(h, race, [{ name: 'Concurrent Runner' }]);
    const batch = { check_ins: [{ id: randomUUID(), registration_id: extra, at: at(-3000) }], undos: [] };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => sync(agents.checker, race.event.id, batch)),
    );
    for (const answer of answers) assert.deepEqual(answer.check_ins, answers[0]!.check_ins);
    assert.equal((await rowsOf(extra!)).length, 1);
    const others = await Promise.all(
      [agents.owner, agents.admin, agents.checker, second, agents.owner].map((agent, i) =>
        sync(agent, race.event.id, {
          check_ins: [{ id: randomUUID(), registration_id: extra, at: at(-10_000 + i) }],
          undos: [],
        }),
      ),
    );
    assert.ok(
      others.every((o) => o.check_ins[0]!.result === 'conflict' || o.check_ins[0]!.result === 'checked_in'),
    );
    const rows = await rowsOf(extra!);
    assert.equal(rows.length, 6);
    const live = rows.filter((r) => r.state === 'live');
    assert.equal(live.length, 1);
    assert.equal(
      Math.min(...rows.map((r) => r.checkedInAt.getTime())),
      live[0]!.checkedInAt.getTime(),
      'the earliest is live',
    );
  });

  test('two volunteers, one runner: the earlier tap wins wherever it arrives, the later is a conflict', async () => {
    const runner = ids[3]!;
    const since = at(-1000);
    const late = await sync(agents.checker, race.event.id, {
      check_ins: [{ id: randomUUID(), registration_id: runner, at: at(-10_000) }],
      undos: [],
    });
    assert.equal(late.check_ins[0]!.result, 'checked_in');
    // the second volunteer was offline: their tap was earlier, and arrives now
    const early = await sync(second, race.event.id, {
      check_ins: [{ id: randomUUID(), registration_id: runner, at: at(-20_000) }],
      undos: [],
    });
    assert.equal(early.check_ins[0]!.result, 'checked_in');
    // a third, later tap loses and is told who won, and when
    const third = await sync(agents.owner, race.event.id, {
      check_ins: [{ id: randomUUID(), registration_id: runner, at: at(-1000) }],
      undos: [],
    });
    assert.equal(third.check_ins[0]!.result, 'conflict');
    assert.equal(third.check_ins[0]!.winner!.at, early.check_ins[0]!.at);
    // the first device, asking again (a retry), hears it lost to the earlier tap
    const rows = await rowsOf(runner);
    assert.equal(rows.length, 3);
    assert.deepEqual(
      rows.filter((r) => r.state === 'live').map((r) => r.checkedInAt.toISOString()),
      [early.check_ins[0]!.at],
    );
    const changes = await callJson(
      agents.checker,
      'GET',
      `/check-in/${race.event.id}/changes?since=${encodeURIComponent(since)}`,
    );
    const change = jsonOf(changes).changes.find(
      (c: { registration_id: string }) => c.registration_id === runner,
    );
    assert.equal(change.live.at, early.check_ins[0]!.at);
    const audit = await listAuditEvents(db(), mine.organizationId, { limit: 50 });
    const conflicts = audit.rows.filter(
      (r) => r.action === 'check_in.conflict' && JSON.stringify(r).includes(runner),
    );
    assert.equal(conflicts.length, 2);
  });

  test('an undo counts within a minute of the check-in, is idempotent, and frees the runner', async () => {
    const runner = ids[4]!;
    const id = randomUUID();
    await sync(agents.checker, race.event.id, {
      check_ins: [{ id, registration_id: runner, at: at(-30_000) }],
      undos: [],
    });
    const undo = { check_ins: [], undos: [{ id, at: at() }] };
    assert.equal((await sync(agents.checker, race.event.id, undo)).undos[0]!.result, 'undone');
    assert.equal((await sync(second, race.event.id, undo)).undos[0]!.result, 'undone');
    const [row] = await rowsOf(runner);
    assert.ok(row!.undoneAt);
    // checked in again, and too late to undo this time
    const again = randomUUID();
    await sync(agents.checker, race.event.id, {
      check_ins: [{ id: again, registration_id: runner, at: at(-61_000) }],
      undos: [],
    });
    const late = await sync(agents.checker, race.event.id, {
      check_ins: [],
      undos: [{ id: again, at: at() }],
    });
    assert.equal(late.undos[0]!.result, 'refused');
    assert.equal(late.undos[0]!.reason, 'undo_too_late');
    const live = (await rowsOf(runner)).filter((r) => r.state === 'live' && !r.undoneAt);
    assert.equal(live.length, 1);
    const audit = await listAuditEvents(db(), mine.organizationId, { limit: 50 });
    assert.equal(audit.rows.filter((r) => r.action === 'check_in.undone').length, 1);
  });

  test('a cancelled registration, an unknown one and a time out of bounds are refused, each alone', async () => {
    const cancelled = ids[5]!;
    const answer = await sync(agents.checker, race.event.id, {
      check_ins: [
        { id: randomUUID(), registration_id: cancelled, at: at() },
        { id: randomUUID(), registration_id: theirIds[0], at: at() },
        { id: randomUUID(), registration_id: 'reg_ZZZZZZZZZZZZZZZZZZZZZZZZ', at: at() },
        { id: randomUUID(), registration_id: ids[0], at: at(10 * 60_000) },
        { id: randomUUID(), registration_id: ids[0], at: '2020-01-01T00:00:00Z' },
      ],
      undos: [{ id: randomUUID(), at: at() }],
    });
    assert.deepEqual(
      answer.check_ins.map((c) => c.reason),
      ['not_found', 'not_found', 'not_found', 'time_in_future', 'time_before_sales'],
    );
    assert.equal(answer.undos[0]!.reason, 'not_found');
    assert.equal((await rowsOf(ids[0]!)).length, 0);
    assert.equal((await rowsOf(theirIds[0]!)).length, 0);
  });

  test('a void ticket and a registration cancelled after its ticket was issued are refused with reasons', async () => {
    const [voidRunner, laterCancelled] = await addRunners(h, race, [
      { name: 'Void Ticket' },
      { name: 'Later Cancelled' },
    ]);
    await callJson(agents.checker, 'GET', `/check-in/${race.event.id}/roster`); // issues their tickets
    await db().update(tickets).set({ status: 'void' }).where(eq(tickets.registrationId, voidRunner!));
    const { registrations } = await import('../../src/orders/orders.schema.ts');
    await db()
      .update(registrations)
      .set({ status: 'cancelled' })
      .where(eq(registrations.id, laterCancelled!));
    const answer = await sync(agents.checker, race.event.id, {
      check_ins: [
        { id: randomUUID(), registration_id: voidRunner, at: at() },
        { id: randomUUID(), registration_id: laterCancelled, at: at() },
      ],
      undos: [],
    });
    assert.deepEqual(
      answer.check_ins.map((c) => c.reason),
      ['ticket_void', 'not_confirmed'],
    );
    assert.match(JSON.stringify(answer), /cancelled or refunded/);
  });

  test('malformed ids, times and an oversized batch are 400 with a message, and nothing is written', async () => {
    const count = async () => (await db().select().from(checkIns)).length;
    const before = await count();
    const good = { id: randomUUID(), registration_id: ids[0], at: at() };
    const bodies: [unknown, RegExp][] = [
      [{ check_ins: [{ ...good, id: 'x' }], undos: [] }, /check_ins\/0\/id/],
      [{ check_ins: [{ ...good, registration_id: 'ord_123' }], undos: [] }, /registration_id/],
      [{ check_ins: [{ ...good, at: 'yesterday' }], undos: [] }, /at/],
      [{ check_ins: [good, { ...good, at: '2026-13-45T99:99:99Z' }], undos: [] }, /not a real date|at/],
      [{ check_ins: [good, good], undos: [] }, /given twice/],
      [{ check_ins: [good] }, /undos/],
      [
        { check_ins: Array.from({ length: 501 }, () => ({ ...good, id: randomUUID() })), undos: [] },
        /500|check_ins/,
      ],
      ['{not json', /could not be read/],
      [[], /could not be read/],
    ];
    for (const [body, message] of bodies) {
      const res = await callJson(agents.checker, 'POST', `/check-in/${race.event.id}/sync`, body);
      assert.equal(res.statusCode, 400, res.body.slice(0, 300));
      assert.match(jsonOf(res).error.message, message);
    }
    assert.equal(await count(), before);
  });

  test('the POST needs the CSRF token in its header or form field: without it, 403 and nothing written', async () => {
    const body = { check_ins: [{ id: randomUUID(), registration_id: ids[0], at: at() }], undos: [] };
    for (const token of ['', 'wrong-token-0123456789abcdef']) {
      const res = await callJson(agents.checker, 'POST', `/check-in/${race.event.id}/sync`, body, {
        'x-csrf-token': token,
      });
      assert.equal(res.statusCode, 403);
    }
    const foreign = await callJson(agents.checker, 'POST', `/check-in/${race.event.id}/sync`, body, {
      origin: 'https://evil.example',
    });
    assert.equal(foreign.statusCode, 403);
    assert.equal((await rowsOf(ids[0]!)).length, 0);
    const ok = await callJson(agents.checker, 'POST', `/check-in/${race.event.id}/sync`, body);
    assert.equal(ok.statusCode, 200);
  });
});
