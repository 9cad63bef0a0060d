// The payment method registry's proof: a third method defined in one folder of its own
// (fixtures/test-method/) and handed to the service alone is offered on events, priced by the
// organization's fee schedule (or its own default), limited by its own setting (TESTPAY_MAX_AMOUNT),
// paid through its own part of the simulator over real HTTP and refunded there. And every method's
// words exist in every language the checkout speaks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import { ticketTypes } from '../../src/events/events.schema.ts';
import type { FeeSchedule } from '../../src/organizations/organizations.ts';
import { PAYMENT_METHOD_CATALOGUE } from '../../src/payments/methods/catalogue.ts';
import {
  PAYMENT_METHOD_REGISTRY,
  type PaymentMethodDefinition,
} from '../../src/payments/methods/registry.ts';
import type { CheckoutLanguage } from '../../src/payments/methods/payment-method.ts';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import { refundOrder } from '../../src/payments/actions/refund-order.ts';
import { CATALOGS } from '../../src/site/messages/catalog.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import { TEST_METHOD_KEY, testMethod } from './fixtures/test-method/test-method.ts';

const buyer = { name: 'Ann', email: 'ann@example.org', phone: '0772123456' };

describe('a method registered with the service alone', () => {
  let h: Harness;

  before(async () => {
    h = await startHarness({
      env: { TESTPAY_MAX_AMOUNT: '40000' },
      service: { paymentMethods: [...PAYMENT_METHOD_REGISTRY, testMethod] },
    });
  });
  after(() => h.close());

  /** A partner with one event of one 30 000 ticket, its token and the ticket type's id. */
  async function shop(fees?: FeeSchedule) {
    const partner: TestPartner = await makePartner(h, fees ? { fees } : {});
    const event = await makeEvent(h, partner, {
      ticket_types: [{ name: '10 km', price_minor: 30000, capacity: 50, distance_km: 10 }],
    });
    const [ticket] = await h.service.ctx.database.db
      .select()
      .from(ticketTypes)
      .where(eq(ticketTypes.eventId, event.id));
    return { partner, eventId: event.id, ticketTypeId: ticket!.id, token: await getToken(h, partner) };
  }

  async function order(s: Awaited<ReturnType<typeof shop>>, places = 1) {
    const res = await h.service.api.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: bearer(s.token),
      payload: {
        event_id: s.eventId,
        items: Array.from({ length: places }, () => ({
          ticket_type_id: s.ticketTypeId,
          participant_name: 'Ann',
        })),
        buyer,
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data as { id: string };
  }

  function pay(s: Awaited<ReturnType<typeof shop>>, orderId: string, method: string, phone: string) {
    return h.service.api.inject({
      method: 'POST',
      url: `/v1/orders/${orderId}/pay`,
      headers: bearer(s.token),
      payload: { payment_method: method, phone },
    });
  }

  async function readOrder(s: Awaited<ReturnType<typeof shop>>, orderId: string) {
    const res = await h.service.api.inject({ url: `/v1/orders/${orderId}`, headers: bearer(s.token) });
    return res.json().data as {
      status: string;
      laces_fee: number;
      total: number;
      payment_method: string | null;
    };
  }

  /** Runs the jobs until the order's latest attempt is final (or 8 s pass). */
  async function settle(orderId: string) {
    const deadline = Date.now() + 8000;
    for (;;) {
      await h.service.jobs.runDue();
      const [attempt] = await h.service.ctx.database.db
        .select()
        .from(paymentAttempts)
        .where(eq(paymentAttempts.orderId, orderId))
        .orderBy(sql`${paymentAttempts.createdAt} DESC`)
        .limit(1);
      if ((attempt && !['pending', 'submitting'].includes(attempt.status)) || Date.now() > deadline)
        return attempt;
      await new Promise((r) => setTimeout(r, 30));
    }
  }

  test('is offered on an event, after the registry methods', async () => {
    const s = await shop();
    const res = await h.service.api.inject({ url: `/v1/events/${s.eventId}`, headers: bearer(s.token) });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().data.payment_methods, ['momo', 'airtel', TEST_METHOD_KEY]);
  });

  test('is priced by the schedule, paid through the simulator, and refunded', async () => {
    const s = await shop({ [TEST_METHOD_KEY]: { percent_bp: 500, fixed_minor: 0 } });
    const placed = await order(s);
    const res = await pay(s, placed.id, TEST_METHOD_KEY, testMethod.testNumber!('01'));
    assert.equal(res.statusCode, 202, res.body);
    // 5 % of 30 000, from the organization's schedule for this method.
    assert.equal(res.json().data.laces_fee, 1500);
    assert.equal(res.json().data.total, 31500);

    const attempt = await settle(placed.id);
    assert.equal(attempt?.status, 'successful', `${attempt?.failureKind}: ${attempt?.failureMessage}`);
    assert.equal(attempt?.method, TEST_METHOD_KEY);
    // The id its own simulator part gives a payment.
    assert.match(attempt?.providerTransactionId ?? '', /^TP\d+$/);
    const paid = await readOrder(s, placed.id);
    assert.equal(paid.status, 'paid');
    assert.equal(paid.total, 31500);

    const refund = await refundOrder(h.service.ctx, {
      organizationId: s.partner.organizationId,
      orderId: placed.id,
      actor: { memberId: null, label: 'operator' },
      ip: null,
    });
    assert.equal(refund.status, 'succeeded');
    assert.equal(refund.method, TEST_METHOD_KEY);
    assert.equal(refund.amount, 31500);
    // The id its own simulator part gives a refund.
    assert.match(refund.providerReference ?? '', /^TPR\d+$/);
    assert.equal((await readOrder(s, placed.id)).status, 'refunded');
  });

  test("takes the method's default fee when the schedule names none", async () => {
    const s = await shop();
    const placed = await order(s);
    const res = await pay(s, placed.id, TEST_METHOD_KEY, testMethod.testNumber!('09'));
    assert.equal(res.statusCode, 202, res.body);
    // 2 % of 30 000 plus 100, the method's own default.
    assert.equal(res.json().data.laces_fee, 700);
  });

  test('takes no more than its own setting allows (TESTPAY_MAX_AMOUNT)', async () => {
    assert.deepEqual(h.config.payments.methods[TEST_METHOD_KEY], { maxAmount: { UGX: 40_000 } });
    assert.deepEqual(h.service.ctx.gateway.maxAmount[TEST_METHOD_KEY], { UGX: 40_000 });
    const s = await shop();
    // Two places: 61 300 with the method's fee, above its 40 000.
    const placed = await order(s, 2);
    const res = await pay(s, placed.id, TEST_METHOD_KEY, testMethod.testNumber!('01'));
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().error_code, 'amount_too_large');
  });

  test("refuses another method's prompt to a number of the method's network, naming it", async () => {
    const s = await shop();
    const placed = await order(s);
    const res = await pay(s, placed.id, 'momo', testMethod.testNumber!('01'));
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error_code, 'validation_failed');
    assert.match(res.json().message, /Test Pay \(testpay\)/);
  });
});

describe('the registry', () => {
  const languages = Object.keys(CATALOGS) as CheckoutLanguage[];
  const methods: readonly PaymentMethodDefinition[] = [...PAYMENT_METHOD_REGISTRY, testMethod];

  test('gives every method its words in every checkout language', () => {
    assert.ok(languages.length >= 2);
    for (const method of methods) {
      for (const language of languages) {
        const labels = method.labels[language];
        assert.ok(labels, `${method.key} has no labels in ${language}`);
        // A method paid on the provider's page has no menu where prompts wait.
        const words = method.hostedPage
          ? (['name', 'network', 'badge'] as const)
          : (['name', 'network', 'badge', 'menu'] as const);
        for (const word of words) {
          assert.ok(labels[word].trim() !== '', `${method.key} has no ${word} in ${language}`);
        }
      }
    }
  });

  test('and the browser catalogue hold the same methods in the same order, on distinct prefixes', () => {
    assert.deepEqual(
      PAYMENT_METHOD_REGISTRY.map((m) => m.key),
      PAYMENT_METHOD_CATALOGUE.map((m) => m.key),
    );
    // Within a country no number may begin with two networks' prefixes.
    for (const a of methods) {
      for (const b of methods) {
        if (a === b || a.country !== b.country) continue;
        for (const p of a.prefixes) {
          assert.ok(
            !b.prefixes.some((q) => q.startsWith(p) || p.startsWith(q)),
            `${a.key} ${p} and ${b.key}`,
          );
        }
      }
    }
  });
});
