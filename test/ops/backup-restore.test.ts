// The restore drill: a database with paid orders and webhooks still to send is backed up with
// `ticketing db backup`, restored into a new database with `db restore`, and a service on the
// restored one holds the same orders and payments and sends each pending webhook once. On PGlite
// (the default) the backup is taken with the service stopped; on PostgreSQL (TEST_DATABASE_URL)
// while it runs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import type { Harness } from '../helpers/harness.ts';
import { CLI, freshTarget, runNode, type Target } from '../helpers/release.ts';
import {
  createEndpoint,
  makeShop,
  payFreeOrder,
  payThroughSimulator,
  pump,
  pumpFor,
  startReceiver,
  startWebhookHarness,
  verifyDelivery,
  type Receiver,
} from '../webhooks/webhook-helpers.ts';

let sim: Simulator;
let receiver: Receiver;
let receiverUp = true;
/** each answer the receiver gave: the order the webhook is about and the status */
const answers: Array<{ webhookId: string; orderId: string; status: number }> = [];
let secret = '';
const targets: Target[] = [];
const files = mkdtempSync(join(tmpdir(), 'backup-drill-'));

before(async () => {
  sim = await startSimulator({ timeScale: 0.01 });
  receiver = await startReceiver((request) => {
    const status = receiverUp ? 204 : 503;
    answers.push({
      webhookId: String(request.headers['webhook-id']),
      orderId: verifyDelivery(secret, request).data.id as string,
      status,
    });
    return { status };
  });
});

after(async () => {
  await receiver.close();
  await sim.close();
  for (const target of targets) await target.drop();
  rmSync(files, { recursive: true, force: true });
});

async function target(): Promise<Target> {
  const made = await freshTarget();
  targets.push(made);
  return made;
}

const start = (where: Target) =>
  startWebhookHarness({ ...where.env, SIMULATOR_URL: sim.url, RUN_JOBS: 'false' });

/** What must survive the restore, read in a stable order. */
async function snapshot(h: Harness) {
  const { database } = h.service.ctx;
  return {
    orders: await database.rows(
      sql`SELECT id, status, total, buyer_email, paid_at::text FROM orders ORDER BY id`,
    ),
    payments: await database.rows(
      sql`SELECT reference, order_id, status, amount FROM payment_attempts ORDER BY reference`,
    ),
    deliveries: await database.rows(sql`SELECT id, status, attempts FROM webhook_deliveries ORDER BY id`),
  };
}

const successes = (orderId: string) => answers.filter((a) => a.orderId === orderId && a.status < 300);

test('a restored backup keeps orders, payments and pending webhooks, and sends each webhook once', async () => {
  const source = await target();
  let h = await start(source);
  const shop = await makeShop(h);
  secret = (await createEndpoint(h, shop.partner.organizationId, receiver.url, ['order.paid'])).secret;

  // Delivered before the backup.
  const delivered = (await payThroughSimulator(h, sim, shop, 'momo')).orderId;
  await pump(h, () => successes(delivered).length === 1);
  // Tried once and refused: a delivery pending its retry.
  receiverUp = false;
  const retrying = (await payFreeOrder(h, shop)).id;
  await pump(h, () => answers.some((a) => a.orderId === retrying));
  // Paid, its event not yet fanned out to the endpoint.
  const queued = (await payThroughSimulator(h, sim, shop, 'airtel')).orderId;
  const before = await snapshot(h);
  assert.equal(before.orders.length, 3);

  const file = join(files, source.kind === 'postgres' ? 'drill.dump' : 'drill.backup');
  const backup = () => runNode([CLI, 'db', 'backup', file], source.env);
  if (source.kind === 'pglite') {
    // A PGlite directory is open in one process: the service's is refused, not copied mid-write.
    const refused = await backup();
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is open in the service \(process \d+\): stop it first/);
    await h.close();
  }
  const backedUp = await backup();
  assert.equal(backedUp.code, 0, backedUp.stderr);
  assert.match(backedUp.stdout, /^backed up to .+ \(\d+\.\d+ MB\) in \d+\.\d+ s\n$/);
  if (source.kind === 'postgres') await h.close(); // backed up while it ran

  const restoredInto = await target();
  const restored = await runNode([CLI, 'db', 'restore', file], restoredInto.env);
  assert.equal(restored.code, 0, restored.stderr);
  assert.match(restored.stdout, /orders {14}3 \(3 paid\), the latest created \d{4}-/);
  assert.match(restored.stdout, /payment attempts {4}2\n/);
  assert.match(restored.stdout, /webhooks to send {4}1 deliveries pending, 1 events queued\n/);
  assert.match(restored.stdout, /migrations {10}up to date\n$/);
  // A second restore into the same database would mix two: refused, nothing changed.
  const again = await runNode([CLI, 'db', 'restore', file], restoredInto.env);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /restore into a new/);

  h = await start(restoredInto);
  try {
    assert.deepEqual(await snapshot(h), before);
    receiverUp = true;
    await pump(h, () => successes(retrying).length === 1 && successes(queued).length === 1, 20_000);
    await pumpFor(h, 500); // a duplicate would be sent by now
    for (const orderId of [delivered, retrying, queued]) {
      assert.equal(successes(orderId).length, 1, `order.paid of ${orderId} is received once`);
    }
    // The refused delivery was resumed, not made again: the same webhook-id both times.
    assert.deepEqual(new Set(answers.filter((a) => a.orderId === retrying).map((a) => a.webhookId)).size, 1);
  } finally {
    await h.close();
  }
});
