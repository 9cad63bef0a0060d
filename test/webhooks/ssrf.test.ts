// The SSRF guard through the service, with development mode off (WEBHOOK_ALLOW_PRIVATE_URLS unset):
// creation refuses URLs that are or resolve to non-public addresses, and each delivery resolves and
// checks again, so a name that has come to resolve to loopback gets nothing. Host names are
// resolved by a stub: no test asks real DNS, and no packet goes anywhere but loopback.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { insertWebhookEndpoint } from '../../src/webhooks/webhook-endpoints.ts';
import type { ResolvedAddress } from '../../src/webhooks/address-policy.ts';
import { admin, dataOf, errorOf } from '../admin/admin-helpers.ts';
import { makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { deliveriesOf, pump, sendTestEvent } from './webhook-helpers.ts';

let h: Harness;
let orgId: string;
/** The stub's answers; a name not listed does not resolve. */
const dns = new Map<string, string[]>();
const lookups: string[] = [];
/** Counts connections made to it: it must see none. */
let tripwire: Server;
let connections = 0;
let port: number;

before(async () => {
  h = await startHarness({
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false', WEBHOOK_TIME_SCALE: '0.0001' },
    service: {
      webhookResolver: async (hostname): Promise<ResolvedAddress[]> => {
        lookups.push(hostname);
        const answers = dns.get(hostname);
        if (!answers)
          throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      },
    },
  });
  orgId = (await makePartner(h)).organizationId;
  tripwire = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => tripwire.listen(0, '127.0.0.1', resolve));
  port = (tripwire.address() as AddressInfo).port;
});
after(async () => {
  await new Promise((r) => tripwire.close(r));
  await h.close();
});

function create(url: string) {
  return admin(h, { method: 'POST', url: `/organizations/${orgId}/webhook-endpoints`, body: { url } });
}

describe('creating an endpoint with development mode off', () => {
  const refused: [string, string[] | null, RegExp][] = [
    ['http://127.0.0.1:PORT/hooks', null, /https/],
    ['https://127.0.0.1:PORT/hooks', null, /loopback/],
    ['https://[::1]:PORT/hooks', null, /loopback/],
    ['https://[::ffff:127.0.0.1]/hooks', null, /loopback/],
    ['https://169.254.169.254/latest/meta-data/', null, /metadata/],
    ['https://192.168.1.1/hooks', null, /private/],
    ['https://localhost:PORT/hooks', null, /localhost/],
    ['https://loopback.example.test/hooks', ['127.0.0.1'], /127\.0\.0\.1, a loopback address/],
    ['https://v6-loopback.example.test/hooks', ['::1'], /loopback/],
    ['https://mapped.example.test/hooks', ['::ffff:127.0.0.1'], /loopback/],
    ['https://intranet.example.test/hooks', ['10.1.2.3'], /private/],
    ['https://ula.example.test/hooks', ['fd00::1'], /private/],
    ['https://cloud.example.test/hooks', ['169.254.169.254'], /metadata/],
    ['https://cgnat.example.test/hooks', ['100.64.1.1'], /carrier-grade/],
    ['https://mixed.example.test/hooks', ['93.184.216.34', '192.168.1.10'], /192\.168\.1\.10/],
    ['https://nowhere.example.test/hooks', null, /resolves/],
  ];
  for (const [template, answers, message] of refused) {
    test(`refuses ${template}${answers ? ` (resolving to ${answers.join(', ')})` : ''}`, async () => {
      const url = template.replace('PORT', String(port));
      const host = new URL(url).hostname;
      if (answers) dns.set(host, answers);
      const body = errorOf(await create(url), 400, 'validation_failed');
      assert.equal(body.errors![0]!.field, 'url');
      assert.match(body.errors![0]!.message, message);
    });
  }

  test('names are resolved through the injected resolver, and nothing was created', async () => {
    assert.ok(lookups.includes('loopback.example.test'));
    assert.ok(!lookups.includes('localhost'), 'localhost is refused by name, before any lookup');
    const list = dataOf(await admin(h, { url: `/organizations/${orgId}/webhook-endpoints` }), 200);
    assert.equal(list.webhook_endpoints.length, 0);
  });

  test('accepts an https URL whose name resolves only to public addresses', async () => {
    dns.set('hooks.example.test', ['93.184.216.34', '2606:4700:4700::1111']);
    const created = dataOf(await create('https://hooks.example.test/receive'), 201);
    assert.equal(created.url, 'https://hooks.example.test/receive');
    // Changing it to a private address is refused the same way.
    const patched = await admin(h, {
      method: 'PATCH',
      url: `/webhook-endpoints/${created.id}`,
      body: { url: 'https://10.0.0.1/hooks' },
    });
    assert.equal(errorOf(patched, 400, 'validation_failed').errors![0]!.field, 'url');
    await admin(h, { method: 'DELETE', url: `/webhook-endpoints/${created.id}` });
  });
});

describe('delivering with development mode off', () => {
  test('a name that has come to resolve to loopback since creation gets nothing', async () => {
    const host = 'rebind.example.test';
    dns.set(host, ['93.184.216.34']);
    const created = dataOf(await create(`https://${host}:${port}/hooks`), 201);
    dns.set(host, ['127.0.0.1']); // DNS rebinding: the name now points inside
    const before = lookups.filter((name) => name === host).length;
    await sendTestEvent(h, created.id);
    await pump(h, async () => (await deliveriesOf(h, created.id))[0]?.attempt_count >= 2);
    const [delivery] = await deliveriesOf(h, created.id);
    assert.equal(delivery!.status, 'pending', 'still retried: the name may come back');
    for (const attempt of delivery!.attempts) {
      assert.equal(attempt.status, null);
      assert.match(
        attempt.error,
        /^refused: rebind\.example\.test resolves to 127\.0\.0\.1, a loopback address/,
      );
    }
    assert.ok(
      lookups.filter((name) => name === host).length >= before + 2,
      'resolved again at each delivery',
    );
    assert.equal(connections, 0, 'no connection was made');
    await admin(h, { method: 'POST', url: `/webhook-endpoints/${created.id}/disable` });
  });

  test('an endpoint stored when private URLs were allowed is refused at delivery once they are not', async () => {
    // As if registered in development and the database then used with development mode off.
    const { endpoint } = await insertWebhookEndpoint(h.service.ctx.database.db, {
      organizationId: orgId,
      url: `http://127.0.0.1:${port}/hooks`,
      eventTypes: ['order.paid'],
      now: h.clock.now(),
    });
    await sendTestEvent(h, endpoint.id);
    await pump(h, async () => (await deliveriesOf(h, endpoint.id))[0]?.attempt_count >= 1);
    const [delivery] = await deliveriesOf(h, endpoint.id);
    assert.match(delivery!.attempts[0].error, /^refused: the URL must use https/);
    assert.equal(connections, 0, 'no connection was made');
    await admin(h, { method: 'POST', url: `/webhook-endpoints/${endpoint.id}/disable` });
  });
});

describe('configuration', () => {
  test('WEBHOOK_ALLOW_PRIVATE_URLS is refused in production', () => {
    assert.throws(
      () =>
        loadConfig({
          NODE_ENV: 'production',
          ADMIN_API_KEY: 'x'.repeat(32),
          PAYMENT_PROVIDER: 'simulator',
          WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        }),
      (error: unknown) => error instanceof ConfigError && /WEBHOOK_ALLOW_PRIVATE_URLS/.test(error.message),
    );
  });

  test('bad webhook settings fail at start naming the variable', () => {
    for (const [name, value] of [
      ['WEBHOOK_TIME_SCALE', '0'],
      ['WEBHOOK_TIMEOUT_MS', '60000'],
      ['WEBHOOK_ALLOW_PRIVATE_URLS', 'maybe'],
      ['DEMO_WEBHOOK_URL', 'not a url'],
    ] as const) {
      assert.throws(
        () => loadConfig({ NODE_ENV: 'test', [name]: value }),
        (error: unknown) => error instanceof ConfigError && error.message.startsWith(name),
        name,
      );
    }
  });

  test('defaults: 15 s deadline, the real schedule, private URLs off outside development', () => {
    const config = loadConfig({ NODE_ENV: 'test' });
    assert.deepEqual(config.webhooks, {
      allowPrivateUrls: false,
      timeScale: 1,
      timeoutMs: 15_000,
      concurrency: 16,
      sendRate: 600,
    });
    const production = loadConfig({
      NODE_ENV: 'production',
      ADMIN_API_KEY: 'k'.repeat(32),
      PAYMENT_PROVIDER: 'simulator',
    });
    assert.equal(production.webhooks.allowPrivateUrls, false);
  });

  test('development accepts local receivers unless WEBHOOK_ALLOW_PRIVATE_URLS=false', () => {
    assert.equal(loadConfig({ NODE_ENV: 'development' }).webhooks.allowPrivateUrls, true);
    const off = loadConfig({ NODE_ENV: 'development', WEBHOOK_ALLOW_PRIVATE_URLS: 'false' });
    assert.equal(off.webhooks.allowPrivateUrls, false);
  });
});
