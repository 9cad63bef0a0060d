// Orders written in batches. An order whose tickets are counted last (createPlannedOrder) and
// that needs nothing read inside its transaction waits on no statement, so the orders planned in
// the same turn of the event loop can share one transaction: one BEGIN and one COMMIT (one WAL
// flush), and one update per ticket type, so that a ticket type row every buyer of a flash sale
// contends for is locked and committed once for the whole batch instead of once per buyer.
//
// A batch is all or nothing. When it wants more tickets than are left (as the capacity CHECK
// says, or as its orders' own reads of the event already showed), it is written again with the
// ticket type rows locked first: the orders that fit, in the order they came, are written and
// counted in that transaction, and the rest are refused, each with its own answer. Refused as
// sold out when no hold of the ticket type could lapse, or else with the CHECK's refusal, so that
// runOrderTransaction runs the order again taking its tickets first, which frees lapsed holds.
// When a batch fails for any other reason, each order is written again in a transaction of its
// own, so that a failure fails only its own order. A batch whose connection was lost may have
// committed: its orders fail as a lone order's would, and none is written twice.
import type { AppContext } from '../context.ts';
import { connectionGone, type Tx } from '../platform/db.ts';
import { countsOf, soldOut } from './create-order.ts';
import type { OrderPlan } from './plan-order.ts';
import { writeOrders, type CreatedOrder } from './write-orders.ts';
import { capacityRefusal, countTickets, isCapacityRefusal, lockTicketTypes } from '../events/inventory.ts';

/** at most this many orders in one transaction */
export const BATCH_LIMIT = 50;

interface Waiting {
  plan: OrderPlan;
  resolve: (created: CreatedOrder) => void;
  reject: (error: unknown) => void;
}

/** The orders of one transaction, their tickets summed per ticket type and counted last, in id order. */
function writeBatch(ctx: AppContext, tx: Tx, plans: OrderPlan[]) {
  const created = writeOrders(ctx, tx, plans);
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

/** The orders want more of a ticket type than the latest of their reads showed left. */
function overflows(plans: OrderPlan[]): boolean {
  const wanted = new Map<string, number>();
  const left = new Map<string, number>();
  for (const plan of plans) {
    for (const [id, n] of plan.quantities) {
      wanted.set(id, (wanted.get(id) ?? 0) + n);
      const tt = plan.found.ticketTypes.find((t) => t.id === id)!;
      // counts only grow while a sale runs (a lapsed hold aside): the least left is the latest read
      left.set(id, Math.min(left.get(id) ?? Infinity, tt.capacity - tt.paidCount - tt.heldCount));
    }
  }
  return [...wanted].some(([id, n]) => n > left.get(id)!);
}

/**
 * The orders of one transaction with the ticket type rows locked first: those that fit, in the
 * order they came, are written and counted; each of the rest gets its refusal instead.
 */
async function writeLocked(ctx: AppContext, tx: Tx, plans: OrderPlan[]) {
  const ids = [...new Set(plans.flatMap((plan) => [...plan.quantities.keys()]))].sort();
  const rows = new Map((await lockTicketTypes(tx, ids)).map((row) => [row.id, row]));
  const room = new Map(
    ids.map((id) => {
      const row = rows.get(id);
      return [id, row ? row.capacity - row.paidCount - row.heldCount : 0];
    }),
  );
  const fitting: OrderPlan[] = [];
  const refusals = plans.map((plan) => {
    const lacking = [...plan.quantities].find(([id, n]) => room.get(id)! < n);
    if (!lacking) {
      for (const [id, n] of plan.quantities) room.set(id, room.get(id)! - n);
      fitting.push(plan);
      return null;
    }
    const [id, n] = lacking;
    // a hold that lapsed but is not swept yet frees seats: the order's own run will see
    return (rows.get(id)?.heldCount ?? 0) === 0 ? soldOut(plan, id, n) : capacityRefusal(id);
  });
  const { value, writes } = writeBatch(ctx, tx, fitting);
  const outcomes = refusals.map((refusal) => refusal ?? value.shift()!);
  return { value: outcomes, writes };
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

  async #run(batch: Waiting[], locked = overflows(batch.map((w) => w.plan))): Promise<void> {
    const plans = batch.map((w) => w.plan);
    try {
      const outcomes: Array<CreatedOrder | Error> = await this.#ctx.database.transaction(async (tx) => {
        const { value, writes } = locked
          ? await writeLocked(this.#ctx, tx, plans)
          : writeBatch(this.#ctx, tx, plans);
        await Promise.all(writes);
        return value;
      });
      batch.forEach((w, i) => {
        const outcome = outcomes[i]!;
        if (outcome instanceof Error) w.reject(outcome);
        else w.resolve(outcome);
      });
    } catch (error) {
      if (batch.length === 1 || connectionGone(error)) {
        for (const w of batch) w.reject(error);
        return;
      }
      if (!locked && isCapacityRefusal(error)) return this.#run(batch, true);
      await Promise.all(batch.map((w) => this.#run([w], false)));
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
