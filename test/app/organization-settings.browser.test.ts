// The settings page in Chromium: an owner reaches it from the header, meets an error next to its
// field, saves, then turns card payments on; on a live service without card settings the choice is
// disabled with why. axe finds nothing at 360 px and 1280 px and nothing scrolls sideways.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { findOrganization } from '../../src/organizations/organizations.ts';
import { launchBrowser, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import type { Harness } from '../helpers/harness.ts';
import { LIVE_PAYMENT_ENV } from '../helpers/live-env.ts';
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

    const cards = page.getByRole('checkbox', { name: /Card payments/ });
    assert.equal(await cards.isChecked(), false);
    await cards.check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('The settings were saved.').waitFor();
    assert.equal(await page.getByRole('checkbox', { name: /Card payments/ }).isChecked(), true);
    await checkPage(page, 'settings-cards');
    assert.deepEqual((await findOrganization(h.service.ctx.database.db, organization.id))!.optedInMethods, [
      'card',
    ]);
    assert.deepEqual(problems, []);
    await context.close();
  });

  test('on a live service without card settings, the card choice is disabled and says why', async () => {
    const { h: live } = await startListeningHarness(LIVE_PAYMENT_ENV);
    try {
      const app = live.config.appUrl.origin;
      const organization = await makeOrganization(live, 'Tororo Rock Runners');
      const owner = await makeMember(live, organization.id, 'owner');
      const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
      const page = await context.newPage();
      const problems = watchProblems(page);
      await signInPage(page, app, owner);
      await page.goto(`${app}/settings`);
      const cards = page.getByRole('checkbox', { name: /Card payments/ });
      assert.equal(await cards.isDisabled(), true);
      await page
        .getByText('This service is not set up to take them yet, so no event can offer them.')
        .waitFor();
      await checkPage(page, 'settings-cards-disabled');
      assert.deepEqual(problems, []);
      await context.close();
    } finally {
      await live.close();
    }
  });
});
