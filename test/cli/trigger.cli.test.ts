// `ticketing trigger` as a partner runs it: a child process signed in with the partner's own client
// credentials makes a sandbox order through the partner API of a listening service and settles it,
// while this process runs the service's background jobs; the organization's webhook endpoint
// receives order.paid (and order.refunded) for that order, verified with the endpoint's secret.
// Also a KES event paid with M-Pesa and refunded in full, and the one-line refusals: a service
// taking real payments, a missing scope, no event on sale, and the usage error for an unknown event
// type.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClientFor, partnerOf } from '../admin/admin-helpers.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import { freePort, operatorEnv } from '../helpers/process.ts';
import {
  createEndpoint,
  makeShop,
  pump,
  startReceiver,
  startWebhookHarness,
  verifyDelivery,
  type Receiver,
  type Shop,
  type WebhookPayload,
} from '../webhooks/webhook-helpers.ts';
import { LIVE_PAYMENT_ENV } from '../helpers/live-env.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

let h: Harness;
let api: string;
let receiver: Receiver;
let shop: Shop;
let endpoint: { id: string; secret: string };
let dir: string;

before(async () => {
  // M-Pesa's callbacks (the payment's receipt, a reversal's result) come to API_URL: this listener.
  const port = await freePort();
  h = await startWebhookHarness({ API_URL: `http://127.0.0.1:${port}` });
  api = (await h.service.listen({ site: 0, app: 0 })).api;
  receiver = await startReceiver();
  shop = await makeShop(h);
  endpoint = await createEndpoint(h, shop.partner.organizationId, receiver.url, [
    'order.paid',
    'order.refunded',
  ]);
  dir = mkdtempSync(join(tmpdir(), 'ticketing-trigger-'));
});
after(async () => {
  await receiver.close();
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `ticketing trigger` signed in as `partner`, running `harness`'s due jobs (payments, refunds,
 * webhook deliveries) until it exits, as a running service does by itself.
 */
async function trigger(
  args: string[],
  partner: TestPartner,
  harness: Harness = h,
  apiUrl: string = api,
): Promise<Run> {
  const child = spawn(process.execPath, [CLI, 'trigger', ...args, '--api-url', apiUrl], {
    env: {
      ...operatorEnv(),
      DATA_DIR: join(dir, 'none'),
      TICKETING_CLIENT_ID: partner.clientId,
      TICKETING_CLIENT_SECRET: partner.clientSecret,
    },
  });
  const run: Run = { code: null, stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (t: string) => (run.stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (run.stderr += t));
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.on('exit', (code) => {
      run.code = code;
      exited = true;
      resolve();
    }),
  );
  try {
    await pump(harness, () => exited, 90_000);
  } finally {
    child.kill('SIGKILL');
  }
  await exit;
  return run;
}

function orderIdOf(run: Run): string {
  const match = run.stdout.match(/ emitted for order (ord_\S+?):/);
  assert.ok(match, `no order id in:\n${run.stdout}\n${run.stderr}`);
  return match[1]!;
}

/** The webhook the endpoint got for `orderId` of `type`, verified with the endpoint's secret. */
async function received(orderId: string, type: string): Promise<WebhookPayload> {
  const find = () =>
    receiver.requests
      .map((r) => verifyDelivery(endpoint.secret, r))
      .find((p) => p.type === type && p.data.id === orderId);
  await pump(h, () => find() !== undefined);
  return find()!;
}

async function ordersOf(harness: Harness, partner: TestPartner): Promise<unknown[]> {
  const res = await harness.service.api.inject({
    url: '/v1/orders',
    headers: bearer(await getToken(harness, partner)),
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data.orders as unknown[];
}

describe('ticketing trigger', () => {
  test('order.paid: the endpoint receives a verified order.paid for the order it paid from the success number', async () => {
    const run = await trigger(['order.paid'], shop.partner);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    assert.match(run.stdout, new RegExp(`Event ${shop.eventId} `));
    assert.match(run.stdout, /success number 0770000001 \(momo\)/);
    const orderId = orderIdOf(run);
    assert.match(
      run.stdout,
      /order\.paid emitted for order .*every webhook endpoint .* every running listen/,
    );

    const payload = await received(orderId, 'order.paid');
    assert.equal(payload.data.status, 'paid');
    assert.equal(payload.data.ticket_count, 1);
    assert.ok(payload.data.total > 0, 'a paid ticket, paid through the simulator');
  });

  test('order.refunded: the endpoint receives order.paid, then a verified order.refunded for it', async () => {
    const run = await trigger(['order.refunded', '--event', shop.eventId], shop.partner);
    assert.equal(run.code, 0, run.stderr);
    const orderId = orderIdOf(run);
    assert.match(run.stdout, new RegExp(`Order ${orderId} is refunded\n`));

    assert.equal((await received(orderId, 'order.paid')).data.status, 'paid');
    const refunded = await received(orderId, 'order.refunded');
    assert.equal(refunded.data.status, 'refunded');
    assert.equal(refunded.data.refunded_total, refunded.data.total);
  });

  test('an unknown event type is a usage error (exit 2)', async () => {
    const run = await trigger(['order.cancelled'], shop.partner);
    assert.equal(run.code, 2);
    assert.match(
      run.stderr,
      /^error: unknown event type "order\.cancelled": trigger takes order\.paid or order\.refunded\nUsage: ticketing trigger/,
    );
  });

  test('a client without orders:write is refused in one line naming the scope, and nothing is ordered', async () => {
    const reader = partnerOf(
      await createClientFor(h, shop.partner.organizationId, { scopes: ['events:read', 'orders:read'] }),
    );
    const before = (await ordersOf(h, shop.partner)).length;
    const run = await trigger(['order.paid'], reader);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^error: the API client cli_\S+ lacks the orders:write scope, which trigger needs/,
    );
    assert.equal(run.stderr.trimEnd().split('\n').length, 1);
    assert.equal((await ordersOf(h, shop.partner)).length, before);
  });

  test('an organization with no event on sale is refused in one line', async () => {
    const empty = await makePartner(h);
    const run = await trigger(['order.paid'], empty);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^error: no event of your organization is on sale with a ticket trigger can buy/,
    );
    assert.equal(run.stderr.trimEnd().split('\n').length, 1);
  });

  test('order.paid on a KES event: paid with M-Pesa from its success number, in whole shillings', async () => {
    const kes = await makeEvent(h, shop.partner, {
      name: 'Nairobi Sandbox 10K',
      currency: 'KES',
      timezone: 'Africa/Nairobi',
      ticket_types: [{ name: '10 km', price_minor: 150_000, capacity: 10, distance_km: 10 }],
    });
    const run = await trigger(['order.paid', '--event', kes.id], shop.partner);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /success number 0711000001 \(mpesa\)/);
    const payload = await received(orderIdOf(run), 'order.paid');
    assert.equal(payload.data.status, 'paid');
    assert.equal(payload.data.payment_method, 'mpesa');
    assert.equal(payload.data.currency, 'KES');
    assert.equal(payload.data.total % 100, 0, `whole shillings: ${payload.data.total}`);
  });

  test('order.refunded on a KES event: paid with M-Pesa, then reversed in full', async () => {
    const kes = await makeEvent(h, shop.partner, {
      currency: 'KES',
      timezone: 'Africa/Nairobi',
      ticket_types: [{ name: '5 km', price_minor: 100_000, capacity: 10, distance_km: 5 }],
    });
    const run = await trigger(['order.refunded', '--event', kes.id], shop.partner);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    assert.match(run.stdout, /success number 0711000001 \(mpesa\)/);
    const orderId = orderIdOf(run);
    assert.match(run.stdout, new RegExp(`Order ${orderId} is refunded\n`));

    assert.equal((await received(orderId, 'order.paid')).data.payment_method, 'mpesa');
    const refunded = await received(orderId, 'order.refunded');
    assert.equal(refunded.data.status, 'refunded');
    assert.equal(refunded.data.currency, 'KES');
    assert.equal(refunded.data.refunded_total, refunded.data.total);
  });

  test('a refund needs a paid ticket: an event with free tickets only is refused for order.refunded', async () => {
    const partner = await makePartner(h);
    const free = await makeEvent(h, partner, {
      ticket_types: [{ name: 'Fun run', price_minor: 0, capacity: 10, distance_km: 2 }],
    });
    const run = await trigger(['order.refunded', '--event', free.id], partner);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      new RegExp(`^error: event ${free.id} has no ticket on sale that trigger can buy for money`),
    );
  });
});

describe('ticketing trigger against a service taking real payments', () => {
  let live: Harness;
  let liveApi: string;
  before(async () => {
    // Live adapters pointed at addresses never called: trigger must stop before any payment.
    live = await startWebhookHarness(LIVE_PAYMENT_ENV);
    liveApi = (await live.service.listen({ api: 0, site: 0, app: 0 })).api;
  });
  after(() => live?.close());

  test('is refused in one line (exit 1), and no order is made', async () => {
    const liveShop = await makeShop(live);
    const run = await trigger(['order.paid'], liveShop.partner, live, liveApi);
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      `error: the service at ${liveApi} takes real payments (live mode): trigger runs only against a service on the payment simulator\n`,
    );
    assert.equal(run.stdout, '');
    assert.deepEqual(await ordersOf(live, liveShop.partner), []);
  });
});
