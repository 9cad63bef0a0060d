// Every runner on the order page, and the two writes on a runner: a correction, under the
// checkout's own rules (a bad date of birth, an age under the ticket type's minimum, an unknown
// choice, a missing required answer: the form again with the error by its field, nothing
// changed), and a transfer of the place (the old ticket void and its page saying so without naming
// anyone, a new ticket, a mail to the buyer and one to the new runner, an audit entry), refused
// after the event's transfer deadline and for a refunded place. Viewers and developers get 403
// and see no buttons; another organization's order is the 404 page.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { listAuditEvents } from '../../src/audit/audit-log.ts';
import { events } from '../../src/events/events.schema.ts';
import { findEvent } from '../../src/events/events.ts';
import { listDevMail, DEV_MAIL_LIST_MAX } from '../../src/mail/mailbox.ts';
import { registrationsOf } from '../../src/orders/order-out.ts';
import { orders, registrations } from '../../src/orders/orders.schema.ts';
import { bibs } from '../../src/startlists/startlists.schema.ts';
import { issueTickets, ticketsOfOrder } from '../../src/tickets/index.ts';
import { tickets } from '../../src/tickets/tickets.schema.ts';
import { bearer, getToken, makeEvent, makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { flat } from '../site/site-helpers.ts';
import { callJson } from '../checkin/checkin-helpers.ts';
import { makeMember, signIn, type Agent } from './app-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness({ env: { RUN_JOBS: 'false' } });
});
after(() => h.close());

const db = () => h.service.ctx.database.db;

const QUESTIONS = [
  {
    key: 'tshirt',
    label: 'T-shirt size',
    type: 'select' as const,
    required: true,
    options: ['S', 'M', 'L'],
    help: '',
  },
  { key: 'club', label: 'Running club', type: 'text' as const, required: false, options: [], help: '' },
];

let runSeq = 0;

/**
 * An organization with an event (a half marathon from 18 and a fun run, two questions, a waiver)
 * and one free order of two runners placed through the partner API, its tickets issued.
 */
async function world() {
  const partner = await makePartner(h);
  const event = await makeEvent(h, partner, {
    name: 'Lake Run',
    waiver_required: true,
    waiver_version: '2026-1',
    additional_questions: QUESTIONS,
    ticket_types: [
      { name: 'Half marathon', price_minor: 0, capacity: 100, distance_km: 21.1, min_age: 18 },
      { name: 'Fun run', price_minor: 0, capacity: 100, distance_km: 5 },
    ],
  });
  const found = (await findEvent(db(), event.id))!;
  const half = found.ticketTypes.find((t) => t.name === 'Half marathon')!;
  const fun = found.ticketTypes.find((t) => t.name === 'Fun run')!;
  const n = ++runSeq;
  const buyerEmail = `buyer-${n}-${Date.now()}@example.org`;
  const res = await h.service.api.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: bearer(await getToken(h, partner)),
    payload: {
      event_id: event.id,
      items: [
        {
          ticket_type_id: half.id,
          participant_name: 'Nakato Amina',
          date_of_birth: '1990-05-01',
          answers: { tshirt: 'M', club: 'Kampala Hash' },
        },
        { ticket_type_id: fun.id, participant_name: 'Okello Brian', answers: { tshirt: 'S' } },
      ],
      buyer: { name: 'Nakato Amina', email: buyerEmail, phone: '0772123456' },
      waiver_accepted: true,
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const order = res.json().data as { id: string; order_code: string; registrations: { id: string }[] };
  const issued = await issueTickets(db(), order.id, h.clock.now());
  const [first, second] = order.registrations.map((r) => r.id) as [string, string];
  const owner = await signIn(h, await makeMember(h, partner.organizationId, 'owner'));
  return { partner, event: found.event, half, fun, order, first, second, issued, owner, buyerEmail };
}

type World = Awaited<ReturnType<typeof world>>;

async function runnerRow(id: string) {
  const [row] = await db().select().from(registrations).where(eq(registrations.id, id));
  return row!;
}

const runnerUrl = (w: World, id: string, kind: 'correct' | 'transfer') =>
  `/orders/${w.order.id}/runners/${id}/${kind}`;

/** Posts a runner form as its page sends it: the page first, for its CSRF token. */
async function submit(agent: Agent, url: string, fields: Record<string, string>) {
  const form = await agent.get(url);
  assert.equal(form.statusCode, 200, form.body.slice(0, 300));
  return agent.post(url, fields);
}

/** Age in whole years on `on`, counted by hand. */
function age(dob: string, on: Date): number {
  const [y, m, d] = dob.split('-').map(Number) as [number, number, number];
  const local = new Date(on.getTime() + 3 * 3600_000); // Kampala: UTC+3 all year
  const before =
    local.getUTCMonth() + 1 < m || (local.getUTCMonth() + 1 === m && local.getUTCDate() < d) ? 1 : 0;
  return local.getUTCFullYear() - y - before;
}

async function mailsTo(address: string) {
  return (await listDevMail(db(), DEV_MAIL_LIST_MAX)).filter((m) => m.to === address);
}

describe('the order page', () => {
  test("shows each runner's answers, date of birth and age, waiver, bib, ticket and its state", async () => {
    const w = await world();
    await db().insert(bibs).values({
      registrationId: w.first,
      eventId: w.event.id,
      ticketTypeId: w.half.id,
      number: 1207,
      assignedAt: h.clock.now(),
    });
    const page = await w.owner.get(`/orders/${w.order.id}`);
    assert.equal(page.statusCode, 200);
    const body = flat(page.body);
    assert.match(body, /<h2>Runners<\/h2>/);
    assert.match(body, /<h3 id="runner-1">Nakato Amina<\/h3>/);
    assert.match(body, /<h3 id="runner-2">Okello Brian<\/h3>/);
    assert.match(body, /<dt>Ticket type<\/dt><dd>Half marathon, Free<\/dd>/);
    const years = age('1990-05-01', w.event.startsAt);
    assert.match(body, new RegExp(`<dt>Date of birth</dt><dd>1990-05-01 \\(${years} on race day\\)</dd>`));
    assert.match(body, /<dt>T-shirt size<\/dt><dd>M<\/dd>/);
    assert.match(body, /<dt>Running club<\/dt><dd>Kampala Hash<\/dd>/);
    assert.match(body, /<dt>Date of birth<\/dt><dd>Not given<\/dd>/, "the fun runner's");
    assert.match(body, /<dt>Running club<\/dt><dd>—<\/dd>/);
    // the waiver's acceptance in the event's own time: Kampala is UTC+3
    const accepted = new Intl.DateTimeFormat('en-GB', {
      dateStyle: 'medium',
      timeStyle: 'short',
      timeZone: 'Africa/Kampala',
    }).format((await db().select().from(orders).where(eq(orders.id, w.order.id)))[0]!.waiverAcceptedAt!);
    assert.match(
      body,
      new RegExp(`<dt>Waiver</dt><dd>Version 2026-1, accepted ${accepted} \\(Africa/Kampala\\)</dd>`),
    );
    assert.match(body, /<dt>Bib<\/dt><dd>1207<\/dd>/);
    assert.match(body, /<dt>Bib<\/dt><dd>Not given yet<\/dd>/);
    const [t1, t2] = w.issued;
    const site = h.config.siteUrl.origin;
    assert.match(
      body,
      new RegExp(
        `<a href="${site}/tickets/${t1!.token}" rel="noreferrer"><code>${t1!.code}</code></a>, Valid`,
      ),
    );
    assert.match(body, new RegExp(`<code>${t2!.code}</code></a>, Valid`));
    assert.match(body, new RegExp(`href="/orders/${w.order.id}/runners/${w.first}/correct"`));
    assert.match(body, new RegExp(`href="/orders/${w.order.id}/runners/${w.second}/transfer"`));
    assert.equal(body.match(/<dt>Check-in<\/dt><dd>Not checked in<\/dd>/g)?.length, 2);

    // checked in at the desk (the check-in page's sync): the card says when, in the event's time, and by whom
    await w.owner.get(`/check-in/${w.event.id}`);
    const at = new Date(h.clock.now().getTime() - 60_000);
    const synced = await callJson(w.owner, 'POST', `/check-in/${w.event.id}/sync`, {
      check_ins: [{ id: randomUUID(), registration_id: w.first, at: at.toISOString() }],
      undos: [],
    });
    assert.equal(synced.statusCode, 200, synced.body);
    const when = new Intl.DateTimeFormat('en-GB', {
      dateStyle: 'medium',
      timeStyle: 'short',
      timeZone: 'Africa/Kampala',
    });
    const checked = flat((await w.owner.get(`/orders/${w.order.id}`)).body);
    assert.match(
      checked,
      new RegExp(`<dt>Check-in</dt><dd>Checked in ${when.format(at)} \\(Africa/Kampala\\) by [^<]+</dd>`),
    );
    assert.equal(checked.match(/<dt>Check-in<\/dt><dd>Not checked in<\/dd>/g)?.length, 1);
  });

  test('viewers and developers see the runners without buttons or ticket links, and get 403 on the forms', async () => {
    const w = await world();
    for (const role of ['viewer', 'developer'] as const) {
      const agent = await signIn(h, await makeMember(h, w.partner.organizationId, role));
      const page = await agent.get(`/orders/${w.order.id}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /Nakato Amina/);
      assert.match(page.body, new RegExp(`<code>${w.issued[0]!.code}</code>`));
      assert.doesNotMatch(page.body, /\/tickets\//, `${role}: no ticket link`);
      assert.doesNotMatch(page.body, /Correct details|Transfer place/, `${role}: no buttons`);
      for (const kind of ['correct', 'transfer'] as const) {
        const url = runnerUrl(w, w.first, kind);
        const get = await agent.get(url);
        assert.equal(get.statusCode, 403, `${role} GET ${kind}`);
        const post = await agent.post(url, { participant_name: 'Taken Over', email: 'x@example.org' });
        assert.equal(post.statusCode, 403, `${role} POST ${kind}`);
        assert.match(post.body, /Your role cannot do this/);
      }
    }
    assert.equal((await runnerRow(w.first)).participantName, 'Nakato Amina');
    assert.equal((await ticketsOfOrder(db(), w.order.id)).filter((t) => t.status === 'valid').length, 2);
  });

  test("another organization's order and its runner forms are the 404 page", async () => {
    const w = await world();
    const other = await world();
    const res = await other.owner.get(`/orders/${w.order.id}`);
    assert.equal(res.statusCode, 404);
    for (const kind of ['correct', 'transfer'] as const) {
      assert.equal((await other.owner.get(runnerUrl(w, w.first, kind))).statusCode, 404);
      // their own order with my registration: not of that order
      const mixed = `/orders/${other.order.id}/runners/${w.first}/${kind}`;
      assert.equal((await other.owner.get(mixed)).statusCode, 404);
      await other.owner.get(`/orders/${other.order.id}`);
      const post = await other.owner.post(runnerUrl(w, w.first, kind), {
        participant_name: 'Taken Over',
        email: 'x@example.org',
      });
      assert.equal(post.statusCode, 404);
    }
    assert.equal((await runnerRow(w.first)).participantName, 'Nakato Amina');
  });
});

describe('correcting a runner', () => {
  test('saves the name, date of birth and answers, audited by field names, the ticket unchanged', async () => {
    const w = await world();
    const res = await submit(w.owner, runnerUrl(w, w.first, 'correct'), {
      participant_name: 'Nakato Aminah',
      date_of_birth: '1990-05-02',
      'answers.tshirt': 'L',
      'answers.club': '',
    });
    assert.equal(res.statusCode, 303, res.body.slice(0, 500));
    assert.equal(res.headers.location, `/orders/${w.order.id}?runner=corrected`);
    const row = await runnerRow(w.first);
    assert.equal(row.participantName, 'Nakato Aminah');
    assert.equal(row.dateOfBirth, '1990-05-02');
    assert.deepEqual(row.answers, { tshirt: 'L' });
    const page = await w.owner.get(res.headers.location as string);
    assert.match(page.body, /The runner&#39;s details were saved/);
    assert.match(page.body, /Nakato Aminah/);
    const [ticket] = await ticketsOfOrder(db(), w.order.id);
    assert.equal(ticket!.code, w.issued[0]!.code, 'the same ticket');
    const { rows } = await listAuditEvents(db(), w.partner.organizationId, { limit: 5 });
    const entry = rows.find((r) => r.action === 'registration.corrected')!;
    assert.equal(entry.targetId, w.first);
    assert.deepEqual(entry.details, {
      order_code: w.order.order_code,
      changed: ['participant_name', 'date_of_birth', 'answers.club', 'answers.tshirt'],
      choices: { tshirt: { before: 'M', after: 'L' } },
    });
    assert.doesNotMatch(
      JSON.stringify(entry.details),
      /Nakato|1990|Kampala Hash/,
      'no personal value in clear',
    );
  });

  const refusals: [string, Record<string, string>, string, RegExp][] = [
    ['a date of birth that is no date', { date_of_birth: '1990-02-30' }, 'date_of_birth', /real date/],
    [
      'an age under the minimum on race day',
      { date_of_birth: '2015-01-01' },
      'date_of_birth',
      /at least 18 on race day for Half marathon/,
    ],
    [
      'no date of birth where a minimum age applies',
      { date_of_birth: '' },
      'date_of_birth',
      /minimum age of 18/,
    ],
    [
      'a choice not among the options',
      { 'answers.tshirt': 'XXL' },
      'answers-tshirt',
      /from the list: S, M, L/,
    ],
    [
      'a required answer missing',
      { 'answers.tshirt': '' },
      'answers-tshirt',
      /Answer &quot;T-shirt size&quot;/,
    ],
    ['an empty name', { participant_name: ' ' }, 'participant_name', /Enter the runner&#39;s full name/],
    [
      'a name longer than checkout takes',
      { participant_name: 'N'.repeat(201) },
      'participant_name',
      /at most 200 characters/,
    ],
  ];
  for (const [what, change, field, message] of refusals) {
    test(`refuses ${what}: the form again with the error by its field, nothing changed`, async () => {
      const w = await world();
      const before = await runnerRow(w.first);
      const auditBefore = (await listAuditEvents(db(), w.partner.organizationId, { limit: 50 })).rows.length;
      const res = await submit(w.owner, runnerUrl(w, w.first, 'correct'), {
        participant_name: 'Nakato Aminah',
        date_of_birth: '1990-05-01',
        'answers.tshirt': 'M',
        ...change,
      });
      assert.equal(res.statusCode, 422, res.body.slice(0, 300));
      assert.match(res.body, /<title>Error: /);
      assert.match(res.body, /There is a problem/);
      const id = `f-${field}`;
      assert.match(res.body, new RegExp(`<a href="#${id}">`), 'the summary links to the field');
      const errorAt = new RegExp(`<p class="error" id="${id}-error">([^<]*)</p>`).exec(res.body);
      assert.ok(errorAt, `an error next to ${field}`);
      assert.match(errorAt[1]!, message);
      assert.match(res.body, new RegExp(`aria-invalid="true"`));
      assert.deepEqual(await runnerRow(w.first), before);
      const after = (await listAuditEvents(db(), w.partner.organizationId, { limit: 50 })).rows.length;
      assert.equal(after, auditBefore, 'no audit entry');
    });
  }

  test('stays open after the transfer deadline', async () => {
    const w = await world();
    await db()
      .update(events)
      .set({ transferDeadline: new Date(h.clock.now().getTime() - 60_000) })
      .where(eq(events.id, w.event.id));
    const res = await submit(w.owner, runnerUrl(w, w.second, 'correct'), {
      participant_name: 'Okello Brian K.',
      'answers.tshirt': 'S',
    });
    assert.equal(res.statusCode, 303, res.body.slice(0, 300));
    assert.equal((await runnerRow(w.second)).participantName, 'Okello Brian K.');
  });
});

describe('transferring a place', () => {
  test('voids the old ticket, issues a new one, mails both, audits it; the bib stays', async () => {
    const w = await world();
    await db().insert(bibs).values({
      registrationId: w.second,
      eventId: w.event.id,
      ticketTypeId: w.fun.id,
      number: 3301,
      assignedAt: h.clock.now(),
    });
    const newEmail = `new-runner-${Date.now()}@example.org`;
    const res = await submit(w.owner, runnerUrl(w, w.second, 'transfer'), {
      participant_name: 'Achieng Okoth',
      email: newEmail,
      phone: '0701 234567',
      date_of_birth: '2001-03-04',
      'answers.tshirt': 'L',
      'answers.club': 'Gulu Striders',
    });
    assert.equal(res.statusCode, 303, res.body.slice(0, 500));
    assert.equal(res.headers.location, `/orders/${w.order.id}?runner=transferred`);

    const row = await runnerRow(w.second);
    assert.equal(row.participantName, 'Achieng Okoth');
    assert.equal(row.runnerEmail, newEmail);
    assert.equal(row.runnerPhone, '256701234567');
    assert.equal(row.dateOfBirth, '2001-03-04');
    assert.deepEqual(row.answers, { tshirt: 'L', club: 'Gulu Striders' });

    const old = w.issued.find((t) => t.registrationId === w.second)!;
    const rows = await db().select().from(tickets).where(eq(tickets.registrationId, w.second));
    assert.equal(rows.length, 2);
    assert.equal(rows.find((t) => t.id === old.id)!.status, 'void');
    const fresh = rows.find((t) => t.id !== old.id)!;
    assert.equal(fresh.status, 'valid');
    assert.notEqual(fresh.code, old.code);
    assert.notEqual(fresh.token, old.token);
    const listed = await ticketsOfOrder(db(), w.order.id);
    assert.deepEqual(
      listed.map((t) => [t.registrationId, t.code, t.status, t.bib]),
      [
        [w.first, w.issued[0]!.code, 'valid', null],
        [w.second, fresh.code, 'valid', 3301],
      ],
    );
    // issuing again (a confirmation resend) keeps these two
    const again = await issueTickets(db(), w.order.id, h.clock.now());
    assert.deepEqual(
      again.map((t) => t.code),
      [w.issued[0]!.code, fresh.code],
    );

    // the old page says it was transferred, naming no one; the new one opens
    const oldPage = await h.service.site.inject({ url: `/tickets/${old.token}` });
    assert.equal(oldPage.statusCode, 410);
    assert.match(oldPage.body, /Ticket transferred/);
    assert.match(oldPage.body, /Lake Run/);
    assert.doesNotMatch(oldPage.body, /Achieng|Okello|Okoth|new-runner/);
    const newPage = await h.service.site.inject({ url: `/tickets/${fresh.token}` });
    assert.equal(newPage.statusCode, 200);
    assert.match(newPage.body, /Achieng Okoth/);
    assert.match(newPage.body, /3301/);

    // the buyer is told, without the new runner's name; the new runner gets their ticket
    const [away] = await mailsTo(w.buyerEmail);
    assert.ok(away, 'a mail to the buyer');
    assert.match(
      away.subject,
      new RegExp(`A place was transferred: Lake Run \\(order ${w.order.order_code}\\)`),
    );
    assert.match(away.text, /transferred a place in your order for Lake Run \(Fun run\) to another runner/);
    assert.match(away.text, new RegExp(`old ticket, code ${old.code}, no longer works`));
    assert.doesNotMatch(`${away.text}${away.html}`, /Achieng|Okoth|new-runner|tickets\//);
    const [toNew] = await mailsTo(newEmail);
    assert.ok(toNew, 'a mail to the new runner');
    assert.equal(toNew.subject, 'Your ticket for Lake Run');
    assert.match(toNew.text, /^Hello Achieng Okoth,$/m);
    assert.match(toNew.text, new RegExp(`^Ticket code: ${fresh.code}, bib 3301$`, 'm'));
    assert.match(toNew.text, new RegExp(`^${h.config.siteUrl.origin}/tickets/${fresh.token}$`, 'm'));

    // the page tells the owner, and the timeline lists both mails
    const page = await w.owner.get(res.headers.location as string);
    assert.match(page.body, /The place was transferred/);
    assert.match(page.body, /Achieng Okoth/);
    assert.match(page.body, new RegExp(`${newEmail}, 0701234567`), "the runner's contact for owners");

    const { rows: audit } = await listAuditEvents(db(), w.partner.organizationId, { limit: 5 });
    const entry = audit.find((r) => r.action === 'registration.transferred')!;
    assert.equal(entry.targetId, w.second);
    assert.deepEqual(entry.details, {
      order_code: w.order.order_code,
      changed: ['participant_name', 'date_of_birth', 'answers.club', 'answers.tshirt'],
      choices: { tshirt: { before: 'S', after: 'L' } },
      void_ticket: old.code,
      new_ticket: fresh.code,
    });
    assert.doesNotMatch(JSON.stringify(entry.details), /Achieng|Okello|new-runner|Gulu/);
  });

  test('checks the new runner like checkout does, and their email and phone: nothing changed', async () => {
    const w = await world();
    const before = await runnerRow(w.first);
    const res = await submit(w.owner, runnerUrl(w, w.first, 'transfer'), {
      participant_name: 'Young Runner',
      email: 'not-an-address',
      phone: '12',
      date_of_birth: '2016-06-01',
      'answers.tshirt': 'XXL',
    });
    assert.equal(res.statusCode, 422);
    for (const [field, message] of [
      ['email', /email address, such as name@example.org/],
      ['phone', /Ugandan mobile number/],
      ['date_of_birth', /at least 18 on race day/],
      ['answers-tshirt', /from the list/],
    ] as const) {
      const at = new RegExp(`<p class="error" id="f-${field}-error">([^<]*)</p>`).exec(res.body);
      assert.ok(at, field);
      assert.match(at[1]!, message);
    }
    assert.match(res.body, /value="Young Runner"/, 'what was typed is kept');
    assert.deepEqual(await runnerRow(w.first), before);
    assert.equal((await db().select().from(tickets).where(eq(tickets.registrationId, w.first))).length, 1);
  });

  test('is refused after the transfer deadline, with the reason, and nothing changes', async () => {
    const w = await world();
    const deadline = new Date(h.clock.now().getTime() - 60_000);
    await db().update(events).set({ transferDeadline: deadline }).where(eq(events.id, w.event.id));
    const page = await w.owner.get(`/orders/${w.order.id}`);
    assert.doesNotMatch(page.body, /Transfer place/);
    assert.match(page.body, /Transfers closed/);
    const before = await runnerRow(w.first);
    const res = await submit(w.owner, runnerUrl(w, w.first, 'transfer'), {
      participant_name: 'Too Late',
      email: 'late@example.org',
      date_of_birth: '1990-01-01',
      'answers.tshirt': 'M',
    });
    assert.equal(res.statusCode, 409);
    assert.match(res.body, /Transfers for this event have closed/);
    assert.deepEqual(await runnerRow(w.first), before);
    assert.equal((await db().select().from(tickets).where(eq(tickets.registrationId, w.first))).length, 1);
    assert.equal((await mailsTo('late@example.org')).length, 0);
  });

  test("erasing the buyer's data erases the new runner's contact too; then no correction or transfer", async () => {
    const w = await world();
    const res = await submit(w.owner, runnerUrl(w, w.second, 'transfer'), {
      participant_name: 'Achieng Okoth',
      email: 'achieng-erased@example.org',
      phone: '0701234567',
      'answers.tshirt': 'L',
    });
    assert.equal(res.statusCode, 303, res.body.slice(0, 300));
    await w.owner.get(`/orders/${w.order.id}/erase-buyer`);
    const erased = await w.owner.post(`/orders/${w.order.id}/erase-buyer`);
    assert.equal(erased.statusCode, 200, erased.body.slice(0, 300));
    const row = await runnerRow(w.second);
    assert.equal(row.participantName, '[erased]');
    assert.equal(row.runnerEmail, null);
    assert.equal(row.runnerPhone, null);
    const page = await w.owner.get(`/orders/${w.order.id}`);
    assert.doesNotMatch(page.body, /Correct details|Transfer place|achieng-erased/);
    const again = await submit(w.owner, runnerUrl(w, w.second, 'correct'), {
      participant_name: 'Back Again',
      'answers.tshirt': 'L',
    });
    assert.equal(again.statusCode, 409);
    assert.match(again.body, /personal data was erased/);
    assert.equal((await runnerRow(w.second)).participantName, '[erased]');
  });

  test('is refused for a refunded place', async () => {
    const w = await world();
    await db().update(orders).set({ status: 'refunded' }).where(eq(orders.id, w.order.id));
    await db()
      .update(registrations)
      .set({ status: 'cancelled' })
      .where(eq(registrations.orderId, w.order.id));
    const before = [...(await registrationsOf(db(), [w.order.id])).values()];
    const res = await submit(w.owner, runnerUrl(w, w.first, 'transfer'), {
      participant_name: 'Someone Else',
      email: 'someone@example.org',
      date_of_birth: '1990-01-01',
      'answers.tshirt': 'M',
    });
    assert.equal(res.statusCode, 409);
    assert.match(res.body, /This place cannot be transferred: its order is refunded/);
    assert.deepEqual([...(await registrationsOf(db(), [w.order.id])).values()], before);
    const page = await w.owner.get(`/orders/${w.order.id}`);
    assert.doesNotMatch(page.body, /Transfer place/);
  });
});
