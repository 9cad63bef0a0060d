// Overselling is impossible: concurrent buyers and random interleavings never push paid + held
// past capacity. Runs on PGlite and (in CI) on PostgreSQL, where the requests truly race.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { eq, sql } from 'drizzle-orm';
import { ticketTypes } from '../../src/events/events.schema.ts';
import { findEventOnSale } from '../../src/events/events-on-sale.ts';
import { createOrder, runOrderTransaction } from '../../src/orders/create-order.ts';
import { cancelPendingOrder, confirmOrderPaid } from '../../src/orders/order-lifecycle.ts';
import { bearer, getToken, makeEvent, makePartner, startHarness, type Harness } from '../helpers/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ env: { RATE_LIMIT_BEARER_RATE: '100000', RATE_LIMIT_BEARER_BURST: '100000' } });
});
after(() => h.close());

const buyer = { name: 'Buyer', email: 'buyer@example.org', phone: '0772123456' };

async function counts(ticketTypeId: string) {
  const [row] = await h.service.ctx.database.db
    .select()
    .from(ticketTypes)
    .where(eq(ticketTypes.id, ticketTypeId));
  return row!;
}

async function ticketTypeIdOf(eventId: string) {
  const rows = await h.service.ctx.database.db
    .select()
    .from(ticketTypes)
    .where(eq(ticketTypes.eventId, eventId));
  return rows[0]!.id;
}

describe('inventory under concurrency', () => {
  test('200 concurrent order attempts for 20 tickets: exactly 20 held, 180 sold_out', async () => {
    const partner = await makePartner(h);
    const event = await makeEvent(h, partner, {
      ticket_types: [{ name: '10 km', price_minor: 20000, capacity: 20, distance_km: 10 }],
    });
    const ttId = await ticketTypeIdOf(event.id);
    const token = await getToken(h, partner);
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        h.service.api.inject({
          method: 'POST',
          url: '/v1/orders',
          headers: bearer(token),
          payload: {
            event_id: event.id,
            items: [{ ticket_type_id: ttId, participant_name: `Runner ${i}` }],
            buyer,
          },
        }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode);
    assert.equal(statuses.filter((s) => s === 201).length, 20, JSON.stringify(statuses));
    const refused = responses.filter((r) => r.statusCode !== 201);
    assert.equal(refused.length, 180);
    for (const r of refused) {
      assert.equal(r.statusCode, 409);
      assert.equal(r.json().error_code, 'sold_out');
      assert.match(r.json().message, /sold out/);
    }
    const row = await counts(ttId);
    assert.equal(row.heldCount, 20);
    assert.equal(row.paidCount, 0);
    const [{ n }] = (await h.service.ctx.database.rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM orders WHERE event_id = ${event.id}`,
    )) as [{ n: number }];
    assert.equal(n, 20, 'no order row for a refused attempt');
  });

  test('property: random interleavings of create, pay, cancel and expire never oversell', async () => {
    const partner = await makePartner(h);
    const ctx = h.service.ctx;
    type Action =
      | { kind: 'create'; quantity: number }
      | { kind: 'pay'; pick: number }
      | { kind: 'cancel'; pick: number }
      | { kind: 'expire' };
    const action: fc.Arbitrary<Action> = fc.oneof(
      fc.record({ kind: fc.constant('create' as const), quantity: fc.integer({ min: 1, max: 4 }) }),
      fc.record({ kind: fc.constant('pay' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('expire' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        // batches of actions run concurrently, batch after batch
        fc.array(fc.array(action, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 }),
        async (capacity, batches) => {
          h.clock.offsetMs = 0;
          const event = await makeEvent(h, partner, {
            ticket_types: [{ name: 'Race', price_minor: 1000, capacity, distance_km: 5 }],
          });
          const ttId = await ticketTypeIdOf(event.id);
          const orderIds: string[] = [];
          const run = async (a: Action) => {
            const db = ctx.database.db;
            try {
              if (a.kind === 'create') {
                const found = await findEventOnSale(db, {
                  organizationId: partner.organizationId,
                  eventId: event.id,
                  now: ctx.clock.now(),
                });
                const order = await runOrderTransaction((takeFirst) =>
                  ctx.database.transaction(async (tx) => {
                    const created = await createOrder(ctx, tx, {
                      organizationId: partner.organizationId,
                      apiClientId: partner.clientId,
                      session: null,
                      input: {
                        event_id: event.id,
                        items: Array.from({ length: a.quantity }, () => ({
                          ticket_type_id: ttId,
                          participant_name: 'R',
                        })),
                        buyer,
                      },
                      found,
                      takeFirst,
                    });
                    await created.written;
                    return created.order;
                  }),
                );
                orderIds.push(order.id);
              } else if (a.kind === 'pay' && orderIds.length > 0) {
                const id = orderIds[a.pick % orderIds.length]!;
                await ctx.database.transaction((tx) => confirmOrderPaid(tx, id, ctx.clock.now()));
              } else if (a.kind === 'cancel' && orderIds.length > 0) {
                const id = orderIds[a.pick % orderIds.length]!;
                await ctx.database.transaction((tx) => cancelPendingOrder(tx, id, ctx.clock.now()));
              } else if (a.kind === 'expire') {
                h.clock.advance(16 * 60_000);
                await h.service.jobs.runDue();
              }
            } catch (error) {
              if ((error as { code?: string }).code !== 'sold_out') throw error;
            }
          };
          for (const batch of batches) {
            await Promise.all(batch.map(run));
            const row = await counts(ttId);
            assert.ok(row.paidCount + row.heldCount <= row.capacity, `oversold: ${JSON.stringify(row)}`);
            assert.ok(row.heldCount >= 0 && row.paidCount >= 0);
            // The counters agree with the orders themselves.
            const [truth] = await ctx.database.rows<{ held: number; paid: number }>(sql`
              SELECT
                count(*) FILTER (WHERE o.status = 'pending')::int AS held,
                count(*) FILTER (WHERE o.status = 'paid')::int AS paid
              FROM registrations r JOIN orders o ON o.id = r.order_id
              WHERE r.ticket_type_id = ${ttId}`);
            assert.deepEqual({ held: row.heldCount, paid: row.paidCount }, truth);
          }
        },
      ),
      { numRuns: 25 },
    );
    h.clock.offsetMs = 0;
  });
});
