// The example partner site over HTTP (no browser): its page and policy, the sessions its server
// creates with client credentials, fulfilment from a session read, and the webhook receiver's
// signature checks (the SDK's verify, whose own cases are in test/sdk/webhooks.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startPartnerSite, type PartnerSite } from '../../examples/partner-site/server.ts';
import { signWebhook } from '../../src/webhooks/sign-webhook.ts';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import { freePort } from '../helpers/process.ts';

const SECRET = `whsec_${randomBytes(24).toString('base64')}`;

let h: Harness;
let partner: TestPartner;
let site: PartnerSite;
let paidEventId: string;
const webhookLines: string[] = [];
let api: string;
let siteUrl: string;

before(async () => {
  const [apiPort, sitePort, appPort, partnerPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  api = `http://127.0.0.1:${apiPort}`;
  siteUrl = `http://localhost:${sitePort}`;
  h = await startHarness({
    env: { API_URL: api, SITE_URL: siteUrl, APP_URL: `http://127.0.0.1:${appPort}` },
  });
  await h.service.listen();
  const origin = `http://127.0.0.1:${partnerPort}`;
  partner = await makePartner(h, { allowedDomains: [origin], returnUrlDomains: [origin] });
  // A free event on sale sooner than the paid one: the site still sells the paid one by default.
  const soon = h.clock.now().getTime() + 10 * 24 * 3600_000;
  await makeEvent(h, partner, {
    name: 'Free fun run',
    starts_at: new Date(soon).toISOString(),
    ends_at: new Date(soon + 3600_000).toISOString(),
    reg_closes_at: new Date(soon - 3600_000).toISOString(),
    ticket_types: [{ name: '3 km', price_minor: 0, capacity: 100, distance_km: 3 }],
  });
  paidEventId = (await makeEvent(h, partner)).id;
  site = await startPartnerSite({
    url: origin,
    apiUrl: api,
    siteUrl,
    clientId: partner.clientId,
    clientSecret: partner.clientSecret,
    publishableKey: partner.publishableKey,
    webhookSecret: SECRET,
    onWebhook: (line) => webhookLines.push(line),
  });
});
after(async () => {
  await site?.close();
  await h?.close();
});

async function readSession(id: string) {
  const res = await h.service.api.inject({
    url: `/v1/checkout-sessions/${id}`,
    headers: bearer(await getToken(h, partner)),
  });
  return res.json().data;
}

describe('example partner site', () => {
  test('it sells the first event with a paid ticket by default, so payment reaches mobile money', () => {
    assert.equal(site.eventId, paidEventId);
  });

  test('its page loads checkout.js from the site under a CSP with exactly what the contract asks', async () => {
    const res = await fetch(site.url);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy')!;
    const directives = Object.fromEntries(
      csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]),
    );
    assert.deepEqual(directives['default-src'], ["'none'"]);
    assert.deepEqual(directives['script-src'], ["'self'", siteUrl]);
    assert.deepEqual(directives['frame-src'], [siteUrl]);
    assert.deepEqual(directives['child-src'], [siteUrl]);
    assert.deepEqual(directives['connect-src'], ["'self'", api]);
    const page = await res.text();
    assert.ok(page.includes(`<script src="${siteUrl}/v1/checkout.js"></script>`));
    assert.ok(page.includes(`data-publishable-key="${partner.publishableKey}"`));
    assert.ok(page.includes(`data-event-id="${site.eventId}"`), 'sells the first event on sale by default');
    assert.ok(!page.includes(partner.clientSecret), 'the client secret never reaches the browser');
  });

  test('its server creates an embedded session for its own origin with its client credentials', async () => {
    const res = await fetch(`${site.url}/api/embedded-sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prefill: { buyer_name: 'Ann' } }),
    });
    assert.equal(res.status, 201);
    const { session_id } = (await res.json()) as { session_id: string };
    assert.match(session_id, /^cs_[A-Za-z0-9]{16,}$/);
    const session = await readSession(session_id);
    assert.equal(session.ui_mode, 'embedded');
    assert.equal(session.embed_origin, site.url);
    assert.match(session.client_reference_id, /^cart_[0-9a-f]{12}$/);
    const fulfilment = await (await fetch(`${site.url}/api/fulfilment?session_id=${session_id}`)).json();
    assert.deepEqual(
      [fulfilment.fulfilled, fulfilment.session_status, fulfilment.order],
      [false, 'open', null],
    );
  });

  test('its server creates a redirect session that comes back to /thanks', async () => {
    const res = await fetch(`${site.url}/checkout/redirect`, { method: 'POST', redirect: 'manual' });
    assert.equal(res.status, 303);
    const location = res.headers.get('location')!;
    assert.match(location, new RegExp(`^${siteUrl}/checkout/cs_[A-Za-z0-9]+$`));
    const session = await readSession(location.split('/').pop()!);
    assert.equal(session.ui_mode, 'redirect');
    assert.equal(session.on_success_url, `${site.url}/thanks?session_id=${session.id}`);
    assert.equal(session.on_cancel_url, `${site.url}/`);
    const thanks = await (await fetch(`${site.url}/thanks?session_id=${session.id}`)).text();
    assert.match(thanks, /Payment not confirmed yet/);
  });

  test('its webhook receiver fulfils a signed order.paid once and refuses anything unsigned', async () => {
    const body = JSON.stringify({
      type: 'order.paid',
      timestamp: new Date().toISOString(),
      data: { id: 'ord_webhookTest0000000000', order_code: 'WEBHOOK2', status: 'paid' },
    });
    const id = `msg_${randomBytes(8).toString('hex')}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(SECRET, id, timestamp, body),
    };
    const post = (h: Record<string, string>, b = body) =>
      fetch(`${site.url}/webhooks`, { method: 'POST', headers: h, body: b });
    assert.equal((await post({ ...headers, 'webhook-signature': 'v1,AAAA' })).status, 400);
    assert.equal((await post(headers, body.replace('WEBHOOK2', 'WEBHOOK3'))).status, 400, 'body changed');
    assert.equal(site.fulfilments.size, 0);
    assert.equal((await post(headers)).status, 204);
    assert.equal((await post(headers)).status, 204, 'a redelivery is acknowledged');
    assert.deepEqual(
      [...site.fulfilments.values()].map((f) => [f.order_id, f.order_code, f.source]),
      [['ord_webhookTest0000000000', 'WEBHOOK2', 'webhook']],
    );
    assert.deepEqual(webhookLines, [
      `webhook order.paid ${id} verified: order ord_webhookTest0000000000 paid, fulfilled`,
    ]);
  });
});
