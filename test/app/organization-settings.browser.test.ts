// The settings page in Chromium: an owner reaches it from the header, meets an error next to its
// field, saves; axe finds nothing at 360 px and 1280 px and nothing scrolls sideways.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { findOrganization } from '../../src/organizations/organizations.ts';
import { launchBrowser, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import type { Harness } from '../helpers/harness.ts';
import { checkPage, signInPage } from './app-browser.ts';
import { makeMember, makeOrganization } from './app-helpers.ts';

let h: Harness;
let browser: Browser;

before(async () => {
  ({ h } = await startListeningHarness());
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await h?.close();
});

describe('organization settings in Chromium', () => {
  test('an owner changes the time zone after meeting an error', async () => {
    const app = h.config.appUrl.origin;
    const organization = await makeOrganization(h, 'Mbale Hill Runners');
    const owner = await makeMember(h, organization.id, 'owner');
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, owner);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Settings', exact: true })
      .click();
    await page.waitForURL(`${app}/settings`);
    await checkPage(page, 'settings');

    await page.getByLabel('Time zone', { exact: true }).fill('Africa/Nairobbi');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
    await checkPage(page, 'settings-error');
    await page.getByLabel('Time zone', { exact: true }).fill('Africa/Nairobi');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('The settings were saved.').waitFor();
    assert.equal(
      (await findOrganization(h.service.ctx.database.db, organization.id))!.timezone,
      'Africa/Nairobi',
    );
    assert.deepEqual(problems, []);
    await context.close();
  });
});
