// DEMO_WEBHOOK_URL: the seeded demo organization gets an endpoint; a URL the rules refuse stops the
// seed before anything is written.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { ConfigError } from '../../src/config.ts';
import { seedDemo } from '../../src/demo/seed-demo.ts';
import type { Harness } from '../helpers/harness.ts';
import {
  getEndpoint,
  pump,
  sendTestEvent,
  startReceiver,
  startWebhookHarness,
  verifyDelivery,
} from './webhook-helpers.ts';

const harnesses: Harness[] = [];
after(async () => {
  for (const h of harnesses) await h.close();
});

test('the demo organization gets a webhook endpoint for DEMO_WEBHOOK_URL', async () => {
  const r = await startReceiver();
  try {
    const h = await startWebhookHarness({ DEMO_WEBHOOK_URL: r.url });
    harnesses.push(h);
    const demo = await seedDemo(h.service.ctx, null);
    assert.ok(demo?.webhook_endpoint_id && demo.webhook_secret);
    const endpoint = await getEndpoint(h, demo.webhook_endpoint_id);
    assert.equal(endpoint.organization_id, demo.organization_id);
    assert.equal(endpoint.url, r.url);
    await sendTestEvent(h, demo.webhook_endpoint_id);
    await pump(h, () => r.requests.length >= 1);
    assert.equal(verifyDelivery(demo.webhook_secret, r.requests[0]!).type, 'test');
  } finally {
    await r.close();
  }
});

test('without DEMO_WEBHOOK_URL the demo has no endpoint', async () => {
  const h = await startWebhookHarness();
  harnesses.push(h);
  const demo = await seedDemo(h.service.ctx, null);
  assert.ok(demo);
  assert.equal(demo.webhook_endpoint_id, undefined);
  // The checkout's buttons name the demo partner's site by this name, not by its host.
  const [client] = await h.service.ctx.database.rows<{ display_name: string | null }>(
    sql`SELECT display_name FROM api_clients WHERE id = ${demo.client_id}`,
  );
  assert.equal(client!.display_name, 'Demo Running Club');
});

test('a local DEMO_WEBHOOK_URL without WEBHOOK_ALLOW_PRIVATE_URLS fails the seed, naming both', async () => {
  const h = await startWebhookHarness({
    WEBHOOK_ALLOW_PRIVATE_URLS: 'false',
    DEMO_WEBHOOK_URL: 'http://127.0.0.1:9/hooks',
  });
  harnesses.push(h);
  await assert.rejects(
    seedDemo(h.service.ctx, null),
    (error: unknown) =>
      error instanceof ConfigError &&
      /^DEMO_WEBHOOK_URL must use https/.test(error.message) &&
      /WEBHOOK_ALLOW_PRIVATE_URLS=true/.test(error.message),
  );
  const [row] = await h.service.ctx.database.rows<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM organizations`,
  );
  assert.equal(row!.n, 0, 'nothing seeded');
});
