// Orders written in batches. An order whose tickets are counted last (createPlannedOrder) and
// that needs nothing read inside its transaction waits on no statement, so the orders planned in
// the same turn of the event loop for the same ticket types are written together: one commit (one
// WAL flush), and one update per ticket type, so that a ticket type row every buyer of a flash
// sale contends for is locked and committed once for the whole batch instead of once per buyer.
//
// A batch is all or nothing. When it wants more tickets than are left (as the capacity CHECK
// says, or as its orders' own reads of the event already showed), it is written again with the
// ticket type rows locked first: the orders that fit, in the order they came, are written and
// counted in that transaction, and the rest are refused, each with its own answer. Refused as
// sold out when no hold of the ticket type could lapse, or else with the CHECK's refusal, so that
// runOrderTransaction runs the order again taking its tickets first, which frees lapsed holds.
// When a batch fails for any other reason, each order is written again in a transaction of its
// own, so that a failure fails only its own order. A batch whose connection was lost may have
// committed: its orders fail as a lone order's would, and none is written twice. One queue per
// service, the context's `orderBatches`, built at start by the composition root (service.ts).
import type { SQL } from 'drizzle-orm';
import type { AppContext } from '../context.ts';
import { asOneStatement, connectionGone, type Tx } from '../platform/index.ts';
import { countsOf } from './create-order.ts';
import { soldOut, type OrderPlan } from './plan-order.ts';
import { orderWrites, type OrderRows } from './write-orders.ts';
import { capacityRefusal, isCapacityRefusal, lockTicketTypes, ticketCountUpdate } from '../events/index.ts';

declare module '../context.ts' {
  interface AppContext {
    readonly orderBatches: OrderBatches;
  }
}

/** What a batch is written with: built before the context that holds the queue. */
type BatchWriter = Pick<AppContext, 'config' | 'database'>;

/** at most this many orders in one batch */
const BATCH_LIMIT = 50;

interface Waiting {
  plan: OrderPlan;
  resolve: (created: OrderRows) => void;
  reject: (error: unknown) => void;
}

/** The writes of a batch's orders, then their tickets summed per ticket type and counted, in id order. */
function batchWrites(ctx: BatchWriter, plans: OrderPlan[]): { created: OrderRows[]; writes: SQL[] } {
  const { created, writes } = orderWrites(ctx, plans);
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
    .map(([id, sum]) => ticketCountUpdate(id, sum));
  return { created, writes: [...writes, ...counted] };
}

/** Sends writes on a transaction in the order given, waiting between none of them. */
async function sendAll(tx: Tx, writes: SQL[]): Promise<void> {
  await Promise.all(writes.map((write) => tx.execute(write)));
}

/** The ticket types an order takes tickets of, as one key: the orders of a batch share it. */
const ticketTypesKey = (plan: OrderPlan) => [...plan.quantities.keys()].join(' ');

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
async function writeLocked(ctx: BatchWriter, tx: Tx, plans: OrderPlan[]): Promise<Array<OrderRows | Error>> {
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
    return (rows.get(id)?.heldCount ?? 0) === 0 ? soldOut(plan.found, id, n) : capacityRefusal(id);
  });
  const { created, writes } = batchWrites(ctx, fitting);
  await sendAll(tx, writes);
  return refusals.map((refusal) => refusal ?? created.shift()!);
}

/**
 * The orders of a batch, all taking tickets of the same ticket types, written and counted. Of one
 * ticket type: in one statement, so that the lock on its row, which every buyer of a flash sale
 * contends for, is held for no round trip. Of several: in a transaction, since the updates of one
 * statement take their rows in no set order, and batches taking them in different orders could
 * deadlock.
 */
async function writeBatch(ctx: BatchWriter, plans: OrderPlan[]): Promise<OrderRows[]> {
  const { created, writes } = batchWrites(ctx, plans);
  if (plans[0]!.quantities.size === 1) await ctx.database.write(asOneStatement(writes));
  else await ctx.database.transaction((tx) => sendAll(tx, writes));
  return created;
}

/** The orders waiting for this turn of the event loop to end, and the batches they are written in. */
export class OrderBatches {
  readonly #ctx: BatchWriter;
  #waiting: Waiting[] = [];

  constructor(ctx: BatchWriter) {
    this.#ctx = ctx;
  }

  write(plan: OrderPlan): Promise<OrderRows> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ plan, resolve, reject });
      if (this.#waiting.length === 1) setImmediate(() => this.#flush());
    });
  }

  #flush(): void {
    const byTicketTypes = new Map<string, Waiting[]>();
    for (const w of this.#waiting) {
      const key = ticketTypesKey(w.plan);
      const group = byTicketTypes.get(key);
      if (group) group.push(w);
      else byTicketTypes.set(key, [w]);
    }
    this.#waiting = [];
    for (const waiting of byTicketTypes.values()) {
      for (let i = 0; i < waiting.length; i += BATCH_LIMIT) void this.#run(waiting.slice(i, i + BATCH_LIMIT));
    }
  }

  async #run(batch: Waiting[], locked = overflows(batch.map((w) => w.plan))): Promise<void> {
    const plans = batch.map((w) => w.plan);
    try {
      const outcomes: Array<OrderRows | Error> = locked
        ? await this.#ctx.database.transaction((tx) => writeLocked(this.#ctx, tx, plans))
        : await writeBatch(this.#ctx, plans);
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

/**
 * Writes a planned order whose tickets are counted last (plan.countLast) and whose checkout needs
 * nothing read in its transaction (no session, no Idempotency-Key), in a batch with the orders
 * planned in the same turn of the event loop. Fails as createPlannedOrder's transaction would.
 */
export function writeOrderInBatch(ctx: AppContext, plan: OrderPlan): Promise<OrderRows> {
  if (!plan.countLast || plan.options.session) {
    throw new Error('writeOrderInBatch: only orders counted last, without a session');
  }
  return ctx.orderBatches.write(plan);
}
