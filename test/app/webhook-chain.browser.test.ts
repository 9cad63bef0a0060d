// Webhooks and the integration checker in Chromium: an owner signs in, adds a webhook endpoint
// pointing at a receiver on loopback, copies the signing secret from the page, sends a test event;
// the receiver got it and the standardwebhooks package verifies it with the copied secret; the page
// shows the 2xx attempt. Then the integration checker says an origin is missing from the client's
// allowed domains, its Add button adds it, and the checker says it is there. Every page: axe with
// no violations, no horizontal scroll at 360 px, and a screenshot at 360 and 1280 px.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, launchBrowser, watchProblems } from '../e2e/browser-helpers.ts';
import { makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { freePort } from '../helpers/process.ts';
import { startReceiver, verifyDelivery, type Receiver } from '../webhooks/webhook-helpers.ts';
import { checkPage } from './app-browser.ts';
import { makeMember } from './app-helpers.ts';

let h: Harness;
let app: string;
let browser: Browser;
let receiver: Receiver;

before(async () => {
  assert.ok(existsSync(CHROMIUM), `Chromium is needed at ${CHROMIUM}`);
  const [api, site, appPort] = [await freePort(), await freePort(), await freePort()];
  // Private URLs allowed: the receiver listens on 127.0.0.1.
  h = await startHarness({
    env: {
      API_URL: `http://127.0.0.1:${api}`,
      SITE_URL: `http://127.0.0.1:${site}`,
      APP_URL: `http://127.0.0.1:${appPort}`,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '5000',
    },
  });
  await h.service.listen();
  app = h.config.appUrl.origin;
  receiver = await startReceiver(() => ({ status: 204 }));
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await receiver?.close();
  await h?.close();
});

/** One page of the chain: checkPage (app-browser.ts) with this file's screenshot names. */
const step = (page: Page, name: string) => checkPage(page, `webhooks-${name}`);

describe('webhooks and the integration checker in Chromium', () => {
  test('add endpoint -> copy secret -> send test event -> verified -> integration checker -> Add -> listed', async () => {
    const partner = await makePartner(h, { allowedDomains: ['https://shop.example.org'] });
    const member = await makeMember(h, partner.organizationId, 'owner');
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app });
    const page = await context.newPage();
    const problems = watchProblems(page);

    await page.goto(`${app}/sign-in`);
    await page.getByLabel('Email', { exact: true }).fill(member.email);
    await page.getByLabel('Password', { exact: true }).fill(member.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app}/`);

    await page.getByRole('link', { name: 'Developer settings' }).click();
    await page.waitForURL(`${app}/developers`);
    await page.getByRole('link', { name: 'Add webhook endpoint' }).click();
    await step(page, 'new-endpoint');
    await page.getByLabel('Endpoint URL').fill('http://');
    await page.getByRole('button', { name: 'Add webhook endpoint' }).click();
    await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
    await step(page, 'new-endpoint-error');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add webhook endpoint' }).click();
    await page.getByRole('heading', { name: 'Webhook endpoint added' }).waitFor();
    await step(page, 'endpoint-added');

    const copy = page.getByRole('button', { name: 'Copy signing secret' });
    assert.ok(await copy.isVisible(), 'the copy button is shown with the script');
    await copy.click();
    await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    const secret = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(secret, /^whsec_/);
    assert.equal(secret, (await page.locator('#signing-secret').innerText()).trim());

    await page.getByRole('link', { name: 'Continue to the endpoint' }).click();
    await step(page, 'endpoint');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('The test event was delivered: the receiver answered HTTP 204').waitFor();
    assert.equal(receiver.requests.length, 1);
    const payload = verifyDelivery(secret, receiver.requests[0]!, h.clock.now());
    assert.equal(payload.type, 'test');
    const log = page.locator('ol.deliveries');
    await log.getByText('delivered').waitFor();
    await log.getByText('HTTP 204').waitFor();
    await step(page, 'endpoint-tested');

    await page.getByRole('link', { name: 'Delete endpoint' }).click();
    await step(page, 'endpoint-delete');
    await page.getByRole('link', { name: 'Cancel' }).click();

    // The integration checker: an origin not in the lists, then added with its button.
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Developer settings' })
      .click();
    await step(page, 'developers');
    await page.getByRole('link', { name: 'integration checker' }).click();
    await step(page, 'integration');
    const origin = 'https://new-site.example.org';
    await page.getByLabel('Site origin').fill(origin);
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText(`${origin} is not in the allowed domains of Test client`).waitFor();
    await step(page, 'integration-missing');
    await page.getByRole('button', { name: `Add ${origin} to allowed domains` }).click();
    await page.getByText('The domain was added.').waitFor();
    await page.goto(`${app}/developers/integration?origin=${encodeURIComponent(origin)}`);
    await page.getByText(`${origin} is in the allowed domains of Test client`).waitFor();
    await step(page, 'integration-listed');

    await page.getByRole('button', { name: /Send a signed test webhook/ }).click();
    await page.getByText('The test event was delivered: the receiver answered HTTP 204').waitFor();
    assert.equal(receiver.requests.length, 2);
    verifyDelivery(secret, receiver.requests[1]!, h.clock.now());
    await step(page, 'integration-webhook-sent');

    assert.deepEqual(problems, []);
    await context.close();
  });
});
