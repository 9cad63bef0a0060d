// Orders written in batches. An order whose tickets are counted last (createPlannedOrder) and
// that needs nothing read inside its transaction waits on no statement, so the orders planned in
// the same turn of the event loop can share one transaction: one BEGIN and one COMMIT (one WAL
// flush), and one update per ticket type, so that a ticket type row every buyer of a flash sale
// contends for is locked and committed once for the whole batch instead of once per buyer.
//
// A batch is all or nothing. When any statement fails (most often the capacity CHECK: the batch
// wanted more tickets than were left), PostgreSQL rolled everything back, and each order is
// written again in a transaction of its own, so that a refusal fails only its own order. A batch
// whose connection was lost may have committed: its orders fail as a lone order's would, and none
// is written twice.
import type { AppContext } from '../context.ts';
import { connectionGone, type Tx } from '../platform/db.ts';
import { countsOf, writeOrder, type CreatedOrder, type OrderPlan } from './create-order.ts';
import { countTickets } from './inventory.ts';

/** at most this many orders in one transaction */
export const BATCH_LIMIT = 50;

interface Waiting {
  plan: OrderPlan;
  resolve: (created: CreatedOrder) => void;
  reject: (error: unknown) => void;
}

/** The orders of one transaction, their tickets summed per ticket type and counted last, in id order. */
function writeBatch(ctx: AppContext, tx: Tx, plans: OrderPlan[]) {
  const created = plans.map((plan) => writeOrder(ctx, tx, plan));
  const counts = new Map<string, { held: number; paid: number }>();
  for (const plan of plans) {
    for (const [id, n] of plan.quantities) {
      const add = countsOf(plan, n);
      const sum = counts.get(id) ?? { held: 0, paid: 0 };
      counts.set(id, { held: sum.held + add.held, paid: sum.paid + add.paid });
    }
  }
  // in id order, as every writer of ticket types takes their rows, so that batches never deadlock
  const counted = [...counts]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, sum]) => countTickets(tx, id, sum));
  return { value: created, writes: [...created.map((c) => c.written), ...counted] };
}

class OrderBatches {
  readonly #ctx: AppContext;
  #waiting: Waiting[] = [];

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }

  write(plan: OrderPlan): Promise<CreatedOrder> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ plan, resolve, reject });
      if (this.#waiting.length === 1) setImmediate(() => this.#flush());
    });
  }

  #flush(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (let i = 0; i < waiting.length; i += BATCH_LIMIT) void this.#run(waiting.slice(i, i + BATCH_LIMIT));
  }

  async #run(batch: Waiting[]): Promise<void> {
    try {
      const created = await this.#ctx.database.transaction(async (tx) =>
        writeBatch(
          this.#ctx,
          tx,
          batch.map((w) => w.plan),
        ),
      );
      batch.forEach((w, i) => w.resolve(created[i]!));
    } catch (error) {
      if (batch.length === 1 || connectionGone(error)) {
        for (const w of batch) w.reject(error);
        return;
      }
      await Promise.all(batch.map((w) => this.#run([w])));
    }
  }
}

const batchesByContext = new WeakMap<AppContext, OrderBatches>();

/**
 * Writes a planned order whose tickets are counted last (plan.countLast) and whose checkout needs
 * nothing read in its transaction (no session, no Idempotency-Key), in a batch with the orders
 * planned in the same turn of the event loop. Fails as createPlannedOrder's transaction would.
 */
export function writeOrderInBatch(ctx: AppContext, plan: OrderPlan): Promise<CreatedOrder> {
  if (!plan.countLast || plan.options.session) {
    throw new Error('writeOrderInBatch: only orders counted last, without a session');
  }
  let batches = batchesByContext.get(ctx);
  if (!batches) batchesByContext.set(ctx, (batches = new OrderBatches(ctx)));
  return batches.write(plan);
}
