// The retention pass (src/privacy/retention-pass.ts): buyer data of orders of events that ended
// more than RETENTION_BUYER_DATA_DAYS ago is replaced by the marker, amounts and counts kept;
// finished webhook deliveries and outbox events go after RETENTION_WEBHOOK_DAYS, never a pending
// delivery or a queued event; unpaid orders that ended and expired checkout sessions go after
// RETENTION_EXPIRED_DAYS, unless money is in play. One service for the file; each test makes its
// own organization and runs the pass itself at the times it chooses.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { reconcileAttempt } from '../../src/payments/collect.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { testPhoneNumber } from '../../src/payments/simulator/scenarios.ts';
import { newId } from '../../src/platform/ids.ts';
import { ERASED } from '../../src/privacy/redact-orders.ts';
import { runRetentionPass } from '../../src/privacy/retention-pass.ts';
import { writeOutboxEvents } from '../../src/webhooks/outbox.ts';
import { bearer, getToken, type Harness } from '../helpers/harness.ts';
import {
  createEndpoint,
  pump,
  startReceiver,
  startWebhookHarness,
  type Receiver,
} from '../webhooks/webhook-helpers.ts';
import {
  amountsOf,
  DAY,
  exists,
  makeRace,
  placeOrder,
  readOrder,
  rowsOf,
  stopRetentionJob,
  storedOrder,
  type Buyer,
  type Race,
} from './privacy-helpers.ts';

let sim: Simulator;
let h: Harness;
let receiver: Receiver;

before(async () => {
  sim = await startSimulator({ timeScale: 0.01 });
  // The receiver answers with the start of what it got, as some do: an excerpt with buyer data.
  receiver = await startReceiver((request) => ({ status: 200, body: request.body.slice(0, 400) }));
  h = await startWebhookHarness({ SIMULATOR_URL: sim.url, RETENTION_BUYER_DATA_DAYS: '10' });
  await stopRetentionJob(h);
});
after(async () => {
  await h.close();
  await receiver.close();
  await sim.close();
});

const pass = () => runRetentionPass(h.service.ctx, { now: h.clock.now() });

/** A paid order of one ticket, paid on the simulator from an MTN test number. */
async function payOrder(race: Race, buyer: Buyer): Promise<string> {
  const order = await placeOrder(h, race, buyer, { paid: true, tickets: 1 });
  const res = await h.service.api.inject({
    method: 'POST',
    url: `/v1/orders/${order.id}/pay`,
    headers: bearer(await getToken(h, race.partner)),
    payload: { payment_method: 'momo', phone: testPhoneNumber('momo', '01') },
  });
  assert.equal(res.statusCode, 202, res.body);
  await Promise.allSettled([...h.service.ctx.gateway.inflight]);
  const [attempt] = await h.service.ctx.database.db
    .select()
    .from(paymentAttempts)
    .where(sql`${paymentAttempts.orderId} = ${order.id}`);
  sim.approve(attempt!.reference);
  assert.equal(await reconcileAttempt(h.service.ctx, attempt!.reference), null);
  return order.id;
}

/** A payment attempt written as it stands, for orders whose payment is only read here. */
async function insertAttempt(race: Race, orderId: string, status: 'failed' | 'pending') {
  const now = h.clock.now();
  await h.service.ctx.database.db.insert(paymentAttempts).values({
    id: newId('pay'),
    reference: randomUUID(),
    orderId,
    organizationId: race.partner.organizationId,
    method: 'momo',
    msisdn: '256770000003',
    amount: 30000,
    currency: 'UGX',
    status,
    promptExpiresAt: now,
    createdAt: now,
    finalizedAt: status === 'failed' ? now : null,
  });
}

async function deliveriesAbout(orderId: string) {
  return rowsOf<{ id: string; event_id: string; status: string }>(
    h,
    sql`SELECT d.id, d.event_id, d.status FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
      WHERE ((e.payload -> 'data') ->> 'id') = ${orderId}`,
  );
}

async function ticketCounts(race: Race) {
  return rowsOf(
    h,
    sql`SELECT id, paid_count, held_count FROM ticket_types WHERE event_id = ${race.eventId} ORDER BY id`,
  );
}

describe('retention pass', () => {
  test('orders of events ended more than RETENTION_BUYER_DATA_DAYS ago lose their personal data; amounts and counts stay', async () => {
    const ended = await makeRace(h);
    const now = h.clock.now().getTime();
    const later = await makeRace(h, {
      partner: ended.partner,
      event: {
        starts_at: new Date(now + 300 * DAY).toISOString(),
        ends_at: new Date(now + 300 * DAY + 6 * 3600_000).toISOString(),
      },
    });
    await createEndpoint(h, ended.partner.organizationId, receiver.url);
    const ann = { name: 'Ann Achieng', email: 'ann.retention@example.org', phone: '0772123456' };
    const free = (await placeOrder(h, ended, ann)).id;
    const paid = await payOrder(ended, ann);
    const other = (await placeOrder(h, later, ann)).id;
    // webhooks delivered (the receiver kept an excerpt) and confirmation mails sent
    await pump(h, async () => {
      for (const id of [free, paid, other]) {
        const stored = await storedOrder(h, id);
        const delivered = (await deliveriesAbout(id)).every((d) => d.status === 'delivered');
        if (stored.mails.length === 0 || (await deliveriesAbout(id)).length === 0 || !delivered) return false;
      }
      return true;
    });
    const amounts = { free: await amountsOf(h, free), paid: await amountsOf(h, paid) };
    const counts = await ticketCounts(ended);

    // The event ends in 30 days and 6 hours: 9 days after its end, nothing goes yet.
    h.clock.advance(30 * DAY + 6 * 3600_000 + 9 * DAY);
    assert.equal((await pass()).done, true);
    assert.equal((await storedOrder(h, paid)).order!.buyer_email, ann.email);

    h.clock.advance(2 * DAY);
    const result = await pass();
    assert.equal(result.done, true);
    assert.equal(result.counts.orders_redacted, 2);
    assert.equal(result.counts.registrations_redacted, 3);
    for (const id of [free, paid]) {
      const stored = await storedOrder(h, id);
      assert.deepEqual(
        [stored.order!.buyer_name, stored.order!.buyer_email, stored.order!.buyer_phone],
        [ERASED, ERASED, ERASED],
      );
      assert.equal(stored.order!.client_ip_hash, null);
      for (const r of stored.registrations) {
        assert.equal(r.participant_name, ERASED);
        assert.equal(r.date_of_birth, null);
        assert.deepEqual(r.answers, {});
        assert.equal(r.status, 'confirmed');
      }
      assert.ok(stored.mails.length > 0);
      for (const m of stored.mails) assert.equal(m.to, ERASED);
      assert.ok(stored.events.length > 0);
      for (const e of stored.events) {
        const data = e.payload.data as {
          buyer: unknown;
          registrations: { participant_name: string }[];
          total: number;
        };
        assert.deepEqual(data.buyer, { name: ERASED, email: ERASED, phone: ERASED });
        assert.ok(data.registrations.every((r) => r.participant_name === ERASED));
        assert.equal(JSON.stringify(e.payload).includes(ann.email), false);
      }
      const excerpts = await rowsOf(
        h,
        sql`SELECT a.response_excerpt FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
          WHERE d.event_id IN (SELECT id FROM outbox_events WHERE ((payload -> 'data') ->> 'id') = ${id})`,
      );
      assert.ok(excerpts.length > 0);
      assert.ok(excerpts.every((x) => x.response_excerpt === null));
    }
    // The payer's number goes; the amount, the reference and the outcome stay.
    const [attempt] = (await storedOrder(h, paid)).attempts;
    assert.deepEqual(attempt, { msisdn: ERASED, amount: amounts.paid!.total, status: 'successful' });
    assert.deepEqual({ free: await amountsOf(h, free), paid: await amountsOf(h, paid) }, amounts);
    assert.deepEqual(await ticketCounts(ended), counts);

    // The partner API shows the marker, with the amounts and the tickets.
    const seen = await readOrder(h, ended, paid);
    assert.deepEqual(seen.buyer, { name: ERASED, email: ERASED, phone: ERASED });
    assert.equal(seen.registrations[0].participant_name, ERASED);
    assert.equal(seen.total, amounts.paid!.total);
    assert.equal(seen.ticket_count, 1);

    // An event not ended long enough keeps its buyers' data, even the same buyer's.
    const kept = await storedOrder(h, other);
    assert.equal(kept.order!.buyer_email, ann.email);
    assert.equal(kept.registrations[0]!.participant_name, `${ann.name} runner 1`);
    assert.equal(kept.registrations[0]!.date_of_birth, '1990-04-01');
    assert.ok(kept.mails.every((m) => m.to === ann.email));

    // A second pass finds nothing more to do.
    const again = await pass();
    assert.equal(again.counts.orders_redacted, undefined);
    assert.equal(again.counts.registrations_redacted, undefined);
  });

  test('finished deliveries with their attempts and outbox events go after RETENTION_WEBHOOK_DAYS; pending ones and queued events stay', async () => {
    const race = await makeRace(h);
    await createEndpoint(h, race.partner.organizationId, receiver.url);
    const bob = { name: 'Bob Okello', email: 'bob.retention@example.org', phone: '0772123457' };
    const old = (await placeOrder(h, race, bob)).id;
    const retrying = (await placeOrder(h, race, bob)).id;
    await pump(h, async () => {
      const both = [...(await deliveriesAbout(old)), ...(await deliveriesAbout(retrying))];
      return both.length === 2 && both.every((d) => d.status === 'delivered');
    });
    const [oldDelivery] = await deliveriesAbout(old);
    const [pendingDelivery] = await deliveriesAbout(retrying);
    // As if the receiver had failed and a retry were scheduled far ahead: pending, never deleted.
    await h.service.ctx.database.db.execute(sql`UPDATE webhook_deliveries
      SET status = 'pending', next_attempt_at = ${new Date(h.clock.now().getTime() + 3650 * DAY).toISOString()}::timestamptz
      WHERE id = ${pendingDelivery!.id}`);

    h.clock.advance(91 * DAY);
    // the first event's sales closed long ago: a new one of the same organization
    const recent = (await placeOrder(h, await makeRace(h, { partner: race.partner }), bob)).id;
    await pump(h, async () => (await deliveriesAbout(recent)).some((d) => d.status === 'delivered'));
    const [recentDelivery] = await deliveriesAbout(recent);
    // An event written long ago and still waiting in the outbox queue (a sender down all along).
    await writeOutboxEvents(h.service.ctx.database.db, [
      {
        organizationId: race.partner.organizationId,
        type: 'order.paid',
        data: { id: 'ord_queuedLongAgo0000000000' },
        at: new Date(h.clock.now().getTime() - 100 * DAY),
      },
    ]);
    const [queued] = await rowsOf<{ id: string }>(
      h,
      sql`SELECT id FROM outbox_events WHERE ((payload -> 'data') ->> 'id') = 'ord_queuedLongAgo0000000000'`,
    );
    const attemptsOf = async (deliveryId: string) =>
      (await rowsOf(h, sql`SELECT id FROM webhook_attempts WHERE delivery_id = ${deliveryId}`)).length;
    assert.ok((await attemptsOf(oldDelivery!.id)) > 0);

    const result = await pass();
    assert.equal(result.done, true);
    assert.ok(result.counts.webhook_deliveries_deleted! >= 1);
    assert.ok(result.counts.outbox_events_deleted! >= 1);
    // the old finished delivery, its attempts and its event are gone
    assert.equal(await exists(h, 'webhook_deliveries', oldDelivery!.id), false);
    assert.equal(await attemptsOf(oldDelivery!.id), 0);
    assert.equal(await exists(h, 'outbox_events', oldDelivery!.event_id), false);
    // the pending one stays with its event, however old
    assert.equal(await exists(h, 'webhook_deliveries', pendingDelivery!.id), true);
    assert.equal(await exists(h, 'outbox_events', pendingDelivery!.event_id), true);
    // the recent one stays with its attempts
    assert.equal(await exists(h, 'webhook_deliveries', recentDelivery!.id), true);
    assert.ok((await attemptsOf(recentDelivery!.id)) > 0);
    assert.equal(await exists(h, 'outbox_events', recentDelivery!.event_id), true);
    // the queued event stays, and so does its place in the queue
    assert.equal(await exists(h, 'outbox_events', queued!.id), true);
    assert.equal(await exists(h, 'outbox_queue', queued!.id, 'event_id'), true);
  });

  test('unpaid orders that ended and expired checkout sessions go after RETENTION_EXPIRED_DAYS, unless money is in play', async () => {
    let race = await makeRace(h);
    const cleo = { name: 'Cleo Nambi', email: 'cleo.retention@example.org', phone: '0772123458' };
    const session = async () => {
      const res = await h.service.api.inject({
        method: 'POST',
        url: '/v1/checkout-sessions',
        headers: { ...bearer(await getToken(h, race.partner)), 'content-type': 'application/json' },
        payload: JSON.stringify({
          event_id: race.eventId,
          on_success_url: 'https://shop.example.org/thanks?session_id={CHECKOUT_SESSION_ID}',
          on_cancel_url: 'https://shop.example.org/cart',
          prefill: { buyer_name: cleo.name, buyer_email: cleo.email },
        }),
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().data.id as string;
    };
    /** A pending order whose hold then runs out. */
    const expiredOrder = async (attempt?: 'failed' | 'pending') => {
      const id = (await placeOrder(h, race, cleo, { paid: true })).id;
      if (attempt) await insertAttempt(race, id, attempt);
      h.clock.advance(16 * 60_000);
      await h.service.jobs.runDue();
      assert.equal((await amountsOf(h, id))!.status, 'expired');
      return id;
    };
    const expired = await expiredOrder('failed');
    const awaited = await expiredOrder('pending');
    const oldSession = await session();
    const counts = await ticketCounts(race);

    h.clock.advance(29 * DAY);
    // the first event's sales have closed by now: a new one of the same organization
    const first = race;
    race = await makeRace(h, { partner: first.partner });
    const fresh = await expiredOrder();
    const freshSession = await session();
    let result = await pass();
    assert.equal(result.counts.unpaid_orders_deleted, undefined, 'nothing ended 30 days ago yet');
    assert.equal(await exists(h, 'orders', expired), true);

    h.clock.advance(2 * DAY);
    result = await pass();
    assert.equal(result.done, true);
    assert.ok(result.counts.unpaid_orders_deleted! >= 1);
    // the order whose hold ran out 31 days ago goes, with its registrations and failed payment
    assert.equal(await exists(h, 'orders', expired), false);
    assert.equal(await exists(h, 'registrations', expired, 'order_id'), false);
    assert.equal(await exists(h, 'payment_attempts', expired, 'order_id'), false);
    // one whose payment the provider may still settle stays; so does the recent one
    assert.equal(await exists(h, 'orders', awaited), true);
    assert.equal(await exists(h, 'orders', fresh), true);
    // the session that expired 30 days ago goes; the one that expired a day ago stays
    assert.equal(await exists(h, 'checkout_sessions', oldSession), false);
    assert.equal(await exists(h, 'checkout_sessions', freshSession), true);
    // ticket counts are what they were: the holds were released when they ran out
    assert.deepEqual(await ticketCounts(first), counts);
  });

  test('ended app sessions, password resets and invitations go after RETENTION_EXPIRED_DAYS', async () => {
    const { createInvitation } = await import('../../src/members/invitations.ts');
    const { requestPasswordReset } = await import('../../src/members/password-resets.ts');
    const { makeMember, signIn } = await import('../app/app-helpers.ts');
    const race = await makeRace(h);
    const db = h.service.ctx.database.db;
    const member = await makeMember(h, race.partner.organizationId, 'admin');
    await signIn(h, member);
    await requestPasswordReset(db, member.email, h.clock.now());
    const invite = (email: string) =>
      createInvitation(db, {
        organizationId: race.partner.organizationId,
        email,
        role: 'viewer',
        invitedBy: null,
        now: h.clock.now(),
      });
    const unused = (await invite('never.came@example.org')).invitation.id;
    const ofMember = async () => {
      const [row] = await rowsOf<{ sessions: number; resets: number; invitations: number }>(
        h,
        sql`SELECT
          (SELECT count(*)::int FROM member_sessions WHERE member_id = ${member.memberId}) AS sessions,
          (SELECT count(*)::int FROM password_resets WHERE member_id = ${member.memberId}) AS resets,
          (SELECT count(*)::int FROM invitations WHERE organization_id = ${race.partner.organizationId}) AS invitations`,
      );
      return row!;
    };
    const before = await ofMember();
    assert.ok(before.sessions > 0);
    assert.deepEqual([before.resets, before.invitations], [1, 2]);

    // A session lasts APP_SESSION_MAX_HOURS (a week), a reset an hour, an invitation 7 days:
    // 29 days after the sessions and invitations ended, only the reset is gone.
    h.clock.advance(7 * DAY + 29 * DAY);
    await pass();
    assert.deepEqual(await ofMember(), { ...before, resets: 0 });
    h.clock.advance(2 * DAY);
    const recent = (await invite('came.late@example.org')).invitation.id;
    const result = await pass();
    assert.deepEqual(await ofMember(), { sessions: 0, resets: 0, invitations: 1 });
    assert.ok(result.counts.member_sessions_deleted! >= 1);
    assert.equal(await exists(h, 'invitations', unused), false);
    assert.equal(await exists(h, 'invitations', recent), true);
    // the member stays
    assert.equal(await exists(h, 'members', member.memberId), true);
  });
});
