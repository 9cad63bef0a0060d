// The organizer app by keyboard alone, in Chromium: sign in, reach Developer settings, create an
// API client and copy its secret with Tab, Space and Enter only. Every control reached shows a
// visible focus indicator.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { findApiClient } from '../../src/auth/clients.ts';
import { CHROMIUM, launchBrowser, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import { makePartner, type Harness } from '../helpers/harness.ts';
import { makeMember } from './app-helpers.ts';

let h: Harness;
let app: string;
let browser: Browser;

before(async () => {
  assert.ok(existsSync(CHROMIUM), `Chromium is needed at ${CHROMIUM}`);
  ({ h } = await startListeningHarness());
  app = h.config.appUrl.origin;
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await h?.close();
});

/** The focused element's accessible name as a person hears it, and whether its focus shows. */
function focused(page: Page) {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return { name: '', visible: false };
    const labels = (element as HTMLInputElement).labels;
    const name = (
      element.getAttribute('aria-label') ??
      (labels && labels.length > 0 ? labels[0]!.textContent : element.textContent) ??
      ''
    )
      .replace(/\s+/g, ' ')
      .trim();
    const style = getComputedStyle(element);
    const visible =
      (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
    return { name, visible };
  });
}

/** Presses Tab until the control named `name` has the focus; fails after 40 presses. */
async function tabTo(page: Page, name: string | RegExp): Promise<void> {
  const seen: string[] = [];
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const now = await focused(page);
    seen.push(now.name);
    if (typeof name === 'string' ? now.name === name : name.test(now.name)) {
      assert.ok(now.visible, `${now.name} shows that it has the focus`);
      return;
    }
  }
  assert.fail(`Tab never reached ${String(name)}; it went through: ${seen.join(' | ')}`);
}

test('sign in, create an API client and copy its secret with the keyboard only', async () => {
  const partner = await makePartner(h);
  const owner = await makeMember(h, partner.organizationId, 'owner');
  const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app });
  const page = await context.newPage();
  const problems = watchProblems(page);

  await page.goto(`${app}/sign-in`);
  await tabTo(page, 'Email');
  await page.keyboard.type(owner.email);
  await tabTo(page, 'Password');
  await page.keyboard.type(owner.password);
  await page.keyboard.press('Enter');
  await page.waitForURL(`${app}/`);

  await tabTo(page, 'Skip to content');
  await tabTo(page, 'Developer settings');
  await page.keyboard.press('Enter');
  await page.waitForURL(`${app}/developers`);
  await tabTo(page, 'Create API client');
  await page.keyboard.press('Enter');
  await page.waitForURL(`${app}/developers/clients/new`);

  await tabTo(page, 'Name');
  await page.keyboard.type('Keyboard shop');
  // Space ticks a scope the form leaves out: the client gets the defaults and that one.
  await tabTo(page, /^webhooks:write/);
  await page.keyboard.press('Space');
  await tabTo(page, 'Create API client');
  await page.keyboard.press('Enter');
  await page.waitForURL(`${app}/developers/clients`);
  const secret = (await page.locator('#client-secret').textContent())?.trim() ?? '';
  assert.match(secret, /\S{20,}/, 'the secret is on the page');
  await tabTo(page, 'Copy client secret');
  await page.keyboard.press('Enter');
  await page.getByText('Copied').first().waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);

  const clientId = (await page.locator('#client-id').textContent())?.trim() ?? '';
  const client = await findApiClient(h.service.ctx.database.db, clientId);
  assert.equal(client?.name, 'Keyboard shop');
  assert.ok(client?.scopes.includes('webhooks:write'), 'the scope ticked by Space is granted');
  assert.ok(client && !client.scopes.includes('orders:write'), 'a scope left unticked is not');
  assert.ok(client?.scopes.includes('events:read'));
  assert.deepEqual(problems, []);
  await context.close();
});
