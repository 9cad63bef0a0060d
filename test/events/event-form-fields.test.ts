// The event form's web address (made from the name, or typed and checked) and the event's
// questions: a key left empty is made from the question's words; the emergency contact an
// organizer switches on per event (the form's box adds or removes the two built-in questions and
// refuses their keys on an organizer's own question; the admin API takes them only as the pair of
// their own types; an order must answer them with a phone number someone can be called on; the
// checkout asks for them in the buyer's language; the runners export keeps the number as text).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import {
  asksEmergencyContact,
  EMERGENCY_CONTACT_NAME,
  EMERGENCY_CONTACT_PHONE,
  withEmergencyContact,
} from '../../src/events/index.ts';
import { findEvent } from '../../src/events/events.ts';
import { isPhoneNumber } from '../../src/orders/index.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import { seedRunners } from '../startlists/seed-runners.ts';
import { admin, createOrg, errorOf, eventBody, fieldsOf } from '../admin/admin-helpers.ts';
import { locationOf, makeMember, signIn, textOf, type Agent } from '../app/app-helpers.ts';
import {
  expectCreated,
  expectFieldErrors,
  HARNESS_ENV,
  orderBody,
  postOrder,
  ticketTypeIds,
} from '../orders/order-helpers.ts';
import { createSession, getPage, makeRace } from '../site/site-helpers.ts';

let h: Harness;
let owner: Agent;
let partner: TestPartner;

before(async () => {
  h = await startHarness({ env: HARNESS_ENV });
  partner = await makePartner(h);
  owner = await signIn(h, await makeMember(h, partner.organizationId, 'owner'));
});
after(() => h.close());

const db = () => h.service.ctx.database.db;

const FORM = {
  name: 'Mbarara Heritage 21K',
  description: '',
  venue: 'Mbarara',
  cover: '',
  visibility: 'public',
  timezone: 'Africa/Kampala',
  starts_at: '2027-05-02T06:30',
  ends_at: '2027-05-02T12:00',
  reg_opens_at: '2026-12-01T08:00',
  reg_closes_at: '2027-04-28T23:59',
  currency: 'UGX',
  organizer_name: 'Heritage Runners',
  support_email: '',
  waiver_version: '',
  waiver_text: '',
  q0_label: 'T-shirt size',
  q0_key: 'tshirt',
  q0_type: 'select',
  q0_options: 'S, M, L',
  q0_required: 'yes',
};

describe('the rules', () => {
  test('a phone number someone can be called on: Ugandan numbers, or + and 7 to 15 digits', () => {
    for (const ok of ['0772 123456', '256772123456', '+254 712 345678', '+44 (20) 7946-0958', '+1 555 0100'])
      assert.ok(isPhoneNumber(ok), ok);
    for (const bad of [
      '',
      'call Ann',
      '12345',
      '0712',
      '254712345678',
      '+12 345',
      '+1234567890123456',
      '+254 712 abc',
    ])
      assert.ok(!isPhoneNumber(bad), bad);
  });

  test('switching on appends the pair once; switching off keeps the own questions in order', () => {
    const own = [
      { key: 'tshirt', label: 'T-shirt', type: 'select' as const, required: true, options: ['S'], help: '' },
    ];
    const on = withEmergencyContact(withEmergencyContact(own, true), true);
    assert.deepEqual(
      on.map((q) => [q.key, q.type, q.required]),
      [
        ['tshirt', 'select', true],
        [EMERGENCY_CONTACT_NAME, 'text', true],
        [EMERGENCY_CONTACT_PHONE, 'phone', true],
      ],
    );
    assert.ok(asksEmergencyContact(on));
    assert.deepEqual(withEmergencyContact(on, false), own);
    assert.ok(!asksEmergencyContact(own));
  });
});

describe('the event form', () => {
  test('the box adds the pair after the own questions; the edit form shows it ticked; unticking removes it', async () => {
    await owner.get('/events/new');
    const created = await owner.post('/events', { ...FORM, emergency_contact: 'yes' });
    assert.equal(created.statusCode, 303, textOf(created.body).slice(0, 400));
    const id = /^\/events\/(evt_\w+)/.exec(locationOf(created))![1]!;
    const stored = async () => (await findEvent(db(), id))!.event.additionalQuestions.map((q) => q.key);
    assert.deepEqual(await stored(), ['tshirt', EMERGENCY_CONTACT_NAME, EMERGENCY_CONTACT_PHONE]);

    const page = await owner.get(`/events/${id}`);
    assert.match(textOf(page.body), /Questions T-shirt size Emergency contact Asked of each runner/);
    const edit = await owner.get(`/events/${id}/edit`);
    assert.match(
      edit.body,
      /<input type="checkbox" id="f-emergency_contact" name="emergency_contact" value="yes"\s+checked/,
    );
    // the built-in questions are the box, not rows to edit
    assert.doesNotMatch(edit.body, /value="emergency_contact_/);

    const saved = await owner.post(`/events/${id}`, FORM);
    assert.equal(saved.statusCode, 303, textOf(saved.body).slice(0, 400));
    assert.deepEqual(await stored(), ['tshirt']);
  });

  test("an organizer's own question may not take a built-in key, and nothing is written", async () => {
    await owner.get('/events/new');
    const res = await owner.post('/events', {
      ...FORM,
      name: 'Reserved key run',
      q1_label: 'Who to call',
      q1_key: EMERGENCY_CONTACT_PHONE,
      q1_type: 'text',
    });
    assert.equal(res.statusCode, 422);
    assert.match(
      textOf(res.body),
      /Question 2: the key emergency_contact_phone is the emergency contact's: tick its box instead\./,
    );
    const list = await owner.get('/events');
    assert.doesNotMatch(list.body, /Reserved key run/);
  });
});

describe('web addresses', () => {
  test('made from the name when left empty, -2 when taken; a typed one taken is refused with a free one', async () => {
    const create = async (fields: Record<string, string>) => {
      await owner.get('/events/new');
      return owner.post('/events', { ...FORM, ...fields });
    };
    const handleOf = async (res: Awaited<ReturnType<typeof create>>) => {
      assert.equal(res.statusCode, 303, textOf(res.body).slice(0, 400));
      const id = /^\/events\/(evt_\w+)/.exec(locationOf(res))![1]!;
      return (await findEvent(db(), id))!.event.handle;
    };
    assert.equal(await handleOf(await create({ name: 'Gulu Peace Run 2027' })), 'gulu-peace-run-2027');
    assert.equal(await handleOf(await create({ name: 'Gulu Peace Run 2027' })), 'gulu-peace-run-2027-2');
    assert.equal(await handleOf(await create({ name: 'Anything', handle: 'Gulu-10K' })), 'gulu-10k');

    const taken = await create({ name: 'Another', handle: 'gulu-peace-run-2027' });
    assert.equal(taken.statusCode, 422);
    assert.match(
      textOf(taken.body),
      /Another of your events uses gulu-peace-run-2027; gulu-peace-run-2027-3 is free\./,
    );
    const bad = await create({ name: 'Another', handle: 'gulu run!' });
    assert.equal(bad.statusCode, 422);
    assert.match(textOf(bad.body), /Use lowercase letters, digits and dashes between them/);
  });
});

describe('question keys', () => {
  test('a key left empty is made from the question; a second alike gets _2; the form shows them', async () => {
    await owner.get('/events/new');
    const res = await owner.post('/events', {
      ...FORM,
      name: 'Keys from labels',
      q0_key: '',
      q0_label: 'T-shirt size?',
      q1_label: 'Club / team',
      q1_type: 'text',
      q2_label: 'T-shirt size',
      q2_type: 'select',
      q2_options: 'S, M',
      q3_label: '2nd club',
      q3_key: 'club',
      q3_type: 'text',
    });
    assert.equal(res.statusCode, 303, textOf(res.body).slice(0, 400));
    const id = /^\/events\/(evt_\w+)/.exec(locationOf(res))![1]!;
    const { event } = (await findEvent(db(), id))!;
    assert.deepEqual(
      event.additionalQuestions.map((q) => q.key),
      ['t_shirt_size', 'club_team', 't_shirt_size_2', 'club'],
    );
    const edit = await owner.get(`/events/${id}/edit`);
    assert.match(edit.body, /name="q1_key"\s+value="club_team"/);
  });
});

describe('the admin API', () => {
  const question = (key: string, type: string) => ({ key, label: key, type, required: true });

  test('takes the pair of their own types, and refuses half of it or the wrong type', async () => {
    const org = await createOrg(h, { payments_enabled: true, support_email: 'org@example.org' });
    const post = (questions: unknown[]) =>
      admin(h, {
        method: 'POST',
        url: `/organizations/${org.id}/events`,
        body: eventBody(h, { additional_questions: questions }),
      });

    const half = await post([question(EMERGENCY_CONTACT_PHONE, 'phone')]);
    assert.deepEqual(fieldsOf(errorOf(half, 400, 'validation_failed')), ['additional_questions[0].key']);

    const wrongType = await post([
      question(EMERGENCY_CONTACT_NAME, 'text'),
      question(EMERGENCY_CONTACT_PHONE, 'text'),
    ]);
    assert.deepEqual(fieldsOf(errorOf(wrongType, 400, 'validation_failed')), [
      'additional_questions[1].type',
    ]);

    const pair = await post([
      question(EMERGENCY_CONTACT_NAME, 'text'),
      question(EMERGENCY_CONTACT_PHONE, 'phone'),
    ]);
    assert.equal(pair.statusCode, 201, pair.body);
  });
});

describe('orders and the checkout', () => {
  test('an order must answer both, the phone as a number; a good answer is kept as typed', async () => {
    const partner = await makePartner(h);
    const auth = bearer(await getToken(h, partner));
    const eventId = (await makeEvent(h, partner, { additional_questions: withEmergencyContact([], true) }))
      .id;
    const [, freeTt] = (await ticketTypeIds(h, eventId)) as [string, string];
    const item = (answers: Record<string, string>) => ({
      items: [{ ticket_type_id: freeTt, participant_name: 'Atim Grace', answers }],
    });
    expectFieldErrors(await postOrder(h, auth, orderBody(eventId, [freeTt])), [
      `items[0].answers.${EMERGENCY_CONTACT_NAME}`,
      `items[0].answers.${EMERGENCY_CONTACT_PHONE}`,
    ]);
    expectFieldErrors(
      await postOrder(
        h,
        auth,
        orderBody(
          eventId,
          [],
          item({ [EMERGENCY_CONTACT_NAME]: 'Okot Sam', [EMERGENCY_CONTACT_PHONE]: 'ask Ann' }),
        ),
      ),
      [`items[0].answers.${EMERGENCY_CONTACT_PHONE}`],
    );
    const answers = { [EMERGENCY_CONTACT_NAME]: 'Okot Sam', [EMERGENCY_CONTACT_PHONE]: '+254 712 345678' };
    const order = expectCreated(await postOrder(h, auth, orderBody(eventId, [], item(answers))));
    const [row] = await h.service.ctx.database.rows<{ answers: unknown }>(
      sql`SELECT answers FROM registrations WHERE order_id = ${order.id}`,
    );
    assert.deepEqual(row!.answers, answers);
  });

  test("the checkout asks in the buyer's language, the number in a phone field", async () => {
    const race = await makeRace(h, { additional_questions: withEmergencyContact([], true) });
    const en = textOf((await getPage(h, `/checkout/${await createSession(h, race)}`)).body);
    assert.match(en, /Emergency contact name Someone we can call on race day if the runner needs help\./);
    const sw = await getPage(h, `/checkout/${await createSession(h, race)}?lang=sw`);
    assert.match(textOf(sw.body), /Simu ya mtu wa kuwasiliana naye wakati wa dharura/);
    assert.match(sw.body, /<input\s+type="tel"\s+id="[^"]*emergency_contact_phone"[^>]*inputmode="tel"/);
  });
});

describe('the runners export', () => {
  test('has a column for each, the number kept as text', async () => {
    const event = await makeEvent(h, partner, { additional_questions: withEmergencyContact([], true) });
    const { event: row, ticketTypes } = (await findEvent(db(), event.id))!;
    await seedRunners(db(), row, ticketTypes[0]!, [
      {
        name: 'Achieng Rose',
        answers: { [EMERGENCY_CONTACT_NAME]: 'Ouma Peter', [EMERGENCY_CONTACT_PHONE]: '0772123456' },
        buyer: { name: 'Achieng Rose', email: 'rose@example.org', phone: '256772000111' },
      },
    ]);
    const res = await owner.get(`/events/${event.id}/runners.csv`);
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    const [header, first] = res.body.replace(/^\uFEFF/, '').split('\r\n');
    assert.match(header!, /,Emergency contact name,Emergency contact phone,/);
    assert.match(first!, /,Ouma Peter,"=""0772123456""",/);
  });
});
