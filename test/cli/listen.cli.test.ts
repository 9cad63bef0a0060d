// `ticketing listen` as a developer runs it: a child process signed in with the partner's client
// credentials, reading the event stream of a listening service and forwarding each event to a
// local receiver, which verifies it with standardwebhooks and the secret the CLI printed. Also a
// dropped connection resumed without losing an event, a new token after expiry, Ctrl-C, a 4xx
// answer's first line with the hint about the signing secret, and the usage and credential errors.
// A stream the API ends for a revoked client or a removed scope stops it, saying why and how to
// resume; one ended by the token's expiry goes on with a new token.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { admin, createClientFor, dataOf, partnerOf } from '../admin/admin-helpers.ts';
import { bearer, getToken, makePartner, type Harness, type TestPartner } from '../helpers/harness.ts';
import { operatorEnv } from '../helpers/process.ts';
import {
  makeShop,
  payFreeOrder,
  startReceiver,
  startWebhookHarness,
  verifyDelivery,
  type Receiver,
  type Shop,
} from '../webhooks/webhook-helpers.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

let h: Harness;
let api: string;
let receiver: Receiver;
let shop: Shop;
let dir: string;
const running = new Set<ChildProcess>();

before(async () => {
  h = await startWebhookHarness();
  api = (await h.service.listen({ api: 0, site: 0, app: 0 })).api;
  receiver = await startReceiver((request) => ({
    status: JSON.parse(request.body).type === 'test' ? 503 : 204,
  }));
  shop = await makeShop(h);
  dir = mkdtempSync(join(tmpdir(), 'ticketing-listen-'));
});
after(async () => {
  for (const child of running) child.kill('SIGKILL');
  await receiver.close();
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Cli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** waits until stdout (or stderr) matches; returns the match */
  waitFor(pattern: RegExp, stream?: 'stdout' | 'stderr'): Promise<RegExpMatchArray>;
  exit: Promise<number | null>;
}

function listen(args: string[], env: Record<string, string> = {}): Cli {
  const child = spawn(process.execPath, [CLI, 'listen', ...args], {
    env: { ...operatorEnv(), DATA_DIR: join(dir, 'none'), ...env },
  });
  running.add(child);
  const out = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (t: string) => (out.stdout += t));
  child.stderr!.setEncoding('utf8').on('data', (t: string) => (out.stderr += t));
  const exit = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return {
    child,
    stdout: () => out.stdout,
    stderr: () => out.stderr,
    exit,
    async waitFor(pattern, stream = 'stdout') {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const match = out[stream].match(pattern);
        if (match) return match;
        if (Date.now() > deadline || child.exitCode !== null) {
          assert.fail(`${stream} never matched ${pattern}:\n${out.stdout}\n${out.stderr}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

function credentialsEnv(s: Shop | TestPartner) {
  const partner = 'partner' in s ? s.partner : s;
  return { TICKETING_CLIENT_ID: partner.clientId, TICKETING_CLIENT_SECRET: partner.clientSecret };
}

/** A second API client of the shop's organization, for `listen` only. */
async function listenerOf(s: Shop): Promise<TestPartner> {
  const client = await createClientFor(h, s.partner.organizationId, {
    name: 'Laptop',
    scopes: ['webhooks:write', 'orders:read'],
  });
  return partnerOf(client);
}

function idsForwarded(orderId: string): number {
  return receiver.requests.filter((r) => JSON.parse(r.body).data.id === orderId).length;
}

async function until(done: () => boolean) {
  const deadline = Date.now() + 20_000;
  while (!done()) {
    if (Date.now() > deadline) assert.fail('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('ticketing listen', () => {
  test('forwards a paid order signed with the printed secret, prints a line each, exits 0 on Ctrl-C', async () => {
    const cli = listen(['--forward-to', receiver.url, '--api-url', api], credentialsEnv(shop));
    const [, secret] = await cli.waitFor(/Webhook signing secret: (whsec_\S+)/);
    assert.match(
      cli.stdout(),
      new RegExp(`Forwarding the webhook events of ${shop.partner.organizationId} to`),
    );

    const before = receiver.requests.length;
    const order = await payFreeOrder(h, shop);
    await until(() => receiver.requests.length > before);
    const forwarded = receiver.requests[before]!;
    assert.equal(forwarded.path, '/hooks');
    const payload = verifyDelivery(secret!, forwarded);
    assert.equal(payload.type, 'order.paid');
    assert.equal(payload.data.id, order.id);
    const id = String(forwarded.headers['webhook-id']);
    await cli.waitFor(new RegExp(`\\d\\d:\\d\\d:\\d\\d  order\\.paid  ${id}  -> 204 in \\d+ ms`));

    // the local answer's status is printed as it is, a failure included
    const test = await h.service.api.inject({
      method: 'POST',
      url: '/v1/webhook-events/test',
      headers: bearer(shop.token),
    });
    await cli.waitFor(new RegExp(`  test  ${test.json().data.id}  -> 503 in \\d+ ms`));

    cli.child.kill('SIGINT');
    assert.equal(await cli.exit, 0);
    assert.match(cli.stdout(), /Stopped\.\n$/);
  });

  test("a 4xx from the receiver prints its reply's first line and which secret listen signs with", async () => {
    const refusing = await startReceiver(() => ({
      status: 400,
      body: `No matching signature found\n${'detail '.repeat(100)}`,
    }));
    try {
      const cli = listen(['--forward-to', refusing.url, '--api-url', api], credentialsEnv(shop));
      const [, secret] = await cli.waitFor(/Webhook signing secret: (whsec_\S+)/);
      await payFreeOrder(h, shop);
      const [lines] = await cli.waitFor(/order\.paid {2}msg_\S+ {2}-> 400 in \d+ ms\n.*\n.*\n/);
      const [, reply, hint] = lines!.split('\n');
      assert.equal(reply, '  the receiver answered: No matching signature found');
      assert.equal(
        hint,
        `  hint: listen signs what it forwards with its own signing secret, ${secret} (printed at start), not a webhook endpoint's: the receiver must verify with that one`,
      );
      cli.child.kill('SIGINT');
      assert.equal(await cli.exit, 0);
    } finally {
      await refusing.close();
    }
  });

  test('a long reply is cut at 200 characters; a 2xx or 5xx prints no hint', async () => {
    let status = 422;
    const answering = await startReceiver(() => ({ status, body: 'x'.repeat(500) }));
    try {
      const cli = listen(['--forward-to', answering.url, '--api-url', api], credentialsEnv(shop));
      await cli.waitFor(/Webhook signing secret/);
      await payFreeOrder(h, shop);
      await cli.waitFor(/-> 422 in \d+ ms\n.*\n.*\n/);
      assert.match(cli.stdout(), new RegExp(`  the receiver answered: ${'x'.repeat(200)}\\.\\.\\.\n`));
      status = 500;
      await payFreeOrder(h, shop);
      await cli.waitFor(/-> 500 in \d+ ms\n/);
      cli.child.kill('SIGINT');
      assert.equal(await cli.exit, 0);
      assert.equal(cli.stdout().match(/hint: /g)!.length, 1, 'the 500 has no hint');
    } finally {
      await answering.close();
    }
  });

  test('an unreachable local URL is printed as an error line, and listening goes on', async () => {
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    const cli = listen(['--forward-to', url, '--api-url', api], credentialsEnv(shop));
    await cli.waitFor(/Webhook signing secret/);
    await payFreeOrder(h, shop);
    await cli.waitFor(/order\.paid {2}msg_\S+ {2}-> error: ECONNREFUSED/);
    cli.child.kill('SIGINT');
    assert.equal(await cli.exit, 0);
  });

  test('a dropped connection is resumed after the last event: nothing paid meanwhile is lost', async () => {
    const cli = listen(['--forward-to', receiver.url, '--api-url', api, '--events', 'order.paid'], {
      ...credentialsEnv(shop),
    });
    await cli.waitFor(/Webhook signing secret/);
    const first = await payFreeOrder(h, shop);
    await cli.waitFor(/order\.paid {2}(msg_\S+) {2}-> 204/);
    const lastId = cli.stdout().match(/order\.paid {2}(msg_\S+) {2}-> 204/)![1]!;

    h.service.api.server.closeAllConnections();
    const missed = await payFreeOrder(h, shop);
    await cli.waitFor(/connection to the API lost/, 'stderr');
    await cli.waitFor(new RegExp(`reconnected, resuming after ${lastId}`));
    await until(() => receiver.requests.some((r) => JSON.parse(r.body).data.id === missed.id));
    const firstCopies = receiver.requests.filter((r) => JSON.parse(r.body).data.id === first.id);
    assert.equal(firstCopies.length, 1, 'the event before the drop is not sent again');
    cli.child.kill('SIGINT');
    assert.equal(await cli.exit, 0);
  });

  test('an expired token is replaced when the stream reconnects', async () => {
    const cli = listen(['--forward-to', receiver.url, '--api-url', api], credentialsEnv(shop));
    await cli.waitFor(/Webhook signing secret/);
    const hours = 2 * 3600_000;
    h.clock.advance(hours); // past the token's hour: the reconnect is refused 401 with it
    try {
      h.service.api.server.closeAllConnections();
      await cli.waitFor(/reconnected\n/);
      await payFreeOrder(h, { ...shop, token: await getToken(h, shop.partner) });
      await cli.waitFor(/order\.paid {2}msg_\S+ {2}-> 204/);
    } finally {
      h.clock.advance(-hours);
    }
    cli.child.kill('SIGINT');
    assert.equal(await cli.exit, 0);
  });

  test('a revoked client stops listen with exit 1, saying why and how to resume; resuming loses nothing', async () => {
    // A shop of its own: the earlier tests' clock moves left an event of the shared one in the future.
    const own = await makeShop(h);
    const listener = await listenerOf(own);
    const cli = listen(['--forward-to', receiver.url, '--api-url', api], credentialsEnv(listener));
    await cli.waitFor(/Webhook signing secret/);
    const first = await payFreeOrder(h, own);
    await until(() => idsForwarded(first.id) === 1);
    const [, lastId] = await cli.waitFor(/order\.paid {2}(msg_\S+) {2}-> 204/);

    dataOf(await admin(h, { method: 'POST', url: `/clients/${listener.clientId}/revoke` }), 200);
    const missed = await payFreeOrder(h, own);
    assert.equal(await cli.exit, 1);
    assert.equal(idsForwarded(missed.id), 0, 'nothing forwarded after the revocation');
    const stderr = cli.stderr();
    assert.match(
      stderr,
      /error: the API ended the event stream \(client_revoked\): The API client was revoked/,
    );
    assert.match(stderr, new RegExp(`Events forwarded up to ${lastId}\\.`));
    assert.match(stderr, /create an API client with the webhooks:write scope/);
    const resume = new RegExp(`ticketing listen --forward-to \\S+ --after ${lastId}\n`);
    assert.match(stderr, resume);

    // As it says: another client of the organization, after the last event forwarded.
    const again = listen(
      ['--forward-to', receiver.url, '--api-url', api, '--after', lastId!],
      credentialsEnv(own),
    );
    await until(() => idsForwarded(missed.id) === 1);
    assert.equal(idsForwarded(first.id), 1, 'the event before it is not sent again');
    again.child.kill('SIGINT');
    assert.equal(await again.exit, 0);
  });

  test('removing webhooks:write stops listen with exit 1 and tells how to give it back', async () => {
    const listener = await listenerOf(await makeShop(h));
    const cli = listen(['--forward-to', receiver.url, '--api-url', api], credentialsEnv(listener));
    await cli.waitFor(/Webhook signing secret/);
    const patched = await admin(h, {
      method: 'PATCH',
      url: `/clients/${listener.clientId}`,
      body: { scopes: ['orders:read'] },
    });
    dataOf(patched, 200);
    assert.equal(await cli.exit, 1);
    const stderr = cli.stderr();
    assert.match(stderr, /error: the API ended the event stream \(scope_removed\)/);
    assert.match(
      stderr,
      new RegExp(`give the API client ${listener.clientId} the webhooks:write scope again`),
    );
    assert.match(stderr, /Nothing was forwarded yet\. To listen again, /);
  });

  test("the token's expiry mid-stream: a new token, and listening goes on", async () => {
    const own = await makeShop(h);
    const cli = listen(['--forward-to', receiver.url, '--api-url', api], credentialsEnv(own));
    await cli.waitFor(/Webhook signing secret/);
    const hours = 2 * 3600_000;
    h.clock.advance(hours); // past the token's hour: the API ends the stream, saying so
    try {
      await cli.waitFor(/the access token expired; getting a new one\n.*reconnected\n/s);
      const order = await payFreeOrder(h, { ...own, token: await getToken(h, own.partner) });
      await until(() => idsForwarded(order.id) === 1);
    } finally {
      h.clock.advance(-hours);
    }
    assert.doesNotMatch(cli.stderr(), /connection to the API lost/);
    cli.child.kill('SIGINT');
    assert.equal(await cli.exit, 0);
  });

  test('credentials from DATA_DIR/demo.json, as in development', async () => {
    const demoDir = join(dir, 'demo');
    const other = await makePartner(h);
    mkdirSync(demoDir, { recursive: true });
    writeFileSync(
      join(demoDir, 'demo.json'),
      JSON.stringify({ client_id: other.clientId, client_secret: other.clientSecret }),
    );
    const cli = listen(['--forward-to', receiver.url], { DATA_DIR: demoDir, API_URL: api });
    await cli.waitFor(new RegExp(`webhook events of ${other.organizationId}`));
    cli.child.kill('SIGINT');
    assert.equal(await cli.exit, 0);
  });

  test('usage and configuration errors exit 2; refused credentials exit 1', async () => {
    const noTarget = listen(['--api-url', api], credentialsEnv(shop));
    assert.equal(await noTarget.exit, 2);
    assert.match(noTarget.stderr(), /--forward-to is required\nUsage: ticketing listen --forward-to/);

    const badTarget = listen(['--forward-to', 'localhost:3000'], credentialsEnv(shop));
    assert.equal(await badTarget.exit, 2);
    assert.match(badTarget.stderr(), /--forward-to must use http or https/);

    const badAfter = listen(['--forward-to', receiver.url, '--after', 'nope'], credentialsEnv(shop));
    assert.equal(await badAfter.exit, 2);
    assert.match(badAfter.stderr(), /--after must be an event's webhook-id \(msg_\.\.\.\), got "nope"/);

    const noCredentials = listen(['--forward-to', receiver.url, '--api-url', api]);
    assert.equal(await noCredentials.exit, 2);
    assert.match(noCredentials.stderr(), /no API client: give --client-id and --client-secret/);

    const wrong = listen([
      '--forward-to',
      receiver.url,
      '--api-url',
      api,
      '--client-id',
      shop.partner.clientId,
      '--client-secret',
      'sk_wrong',
    ]);
    assert.equal(await wrong.exit, 1);
    assert.match(wrong.stderr(), /^error invalid_client: /);
  });
});
