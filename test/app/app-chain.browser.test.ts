// The organizer app in Chromium, end to end: the operator invites an owner with the CLI, the owner
// accepts with a password, signs out and in again, opens Developer settings, creates an API client,
// reads the client id and secret shown once, and those get a token from the real token endpoint
// that lists events; an allowed domain added in the app passes the API's CORS preflight; the
// client revoked in the app is refused 401. Every step: axe with no violations at all, and a
// screenshot at 360 px and at desktop width.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, launchBrowser, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import { makeEvent, makePartner, TEST_ADMIN_KEY, type Harness } from '../helpers/harness.ts';
import { checkPage } from './app-browser.ts';
import { makeMember } from './app-helpers.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** `ticketing invitations create ...` as the operator runs it; its output. */
function cliInvite(organizationId: string, email: string): Promise<string> {
  const env = {
    PATH: process.env.PATH ?? '',
    APP_URL: app,
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    DATA_DIR: 'memory://',
  };
  const args = [
    'invitations',
    'create',
    '--organization',
    organizationId,
    '--email',
    email,
    '--role',
    'owner',
  ];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: 30_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

let h: Harness;
let api: string;
let app: string;
let browser: Browser;

before(async () => {
  assert.ok(existsSync(CHROMIUM), `Chromium is needed at ${CHROMIUM}`);
  ({ h, api } = await startListeningHarness());
  app = h.config.appUrl.origin;
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await h?.close();
});

/** One page of the chain: checkPage (app-browser.ts) with this file's screenshot names. */
const step = (page: Page, name: string) => checkPage(page, `app-${name}`);

describe('organizer app in Chromium', () => {
  test('CLI invitation -> password -> sign in -> Create API client -> token -> events -> domain -> revoke', async () => {
    const partner = await makePartner(h);
    await makeEvent(h, partner);
    const printed = await cliInvite(partner.organizationId, 'owner@example.org');
    const invitationUrl = /(http:\/\/\S+\/invitations\/\S+)/.exec(printed)?.[1];
    assert.ok(invitationUrl, `the CLI prints the link: ${printed}`);

    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app });
    const page = await context.newPage();
    const problems = watchProblems(page);
    const password = 'correct horse battery staple';

    await page.goto(invitationUrl);
    await step(page, 'invitation');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    await page.waitForURL(`${app}/`);
    await step(page, 'overview');

    // exact: the account page also has "Sign out everywhere else"
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(/\/sign-in/);
    await step(page, 'sign-in');
    await page.getByLabel('Email', { exact: true }).fill('owner@example.org');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app}/`);

    await page.getByRole('link', { name: 'Developer settings' }).click();
    await page.waitForURL(`${app}/developers`);
    await step(page, 'developers');
    await page.getByRole('link', { name: 'Create API client' }).click();
    await step(page, 'new-client');
    await page.getByLabel('Name', { exact: true }).fill('Race website');
    await page.getByLabel('Display name (optional)').fill('Kampala Runners Club');
    await page.getByRole('button', { name: 'Create API client' }).click();
    await page.getByRole('heading', { name: 'API client created' }).waitFor();
    await step(page, 'client-created');

    const clientId = (await page.locator('#client-id').innerText()).trim();
    const clientSecret = (await page.locator('#client-secret').innerText()).trim();
    assert.match(clientId, /^cli_/);
    assert.match(clientSecret, /^sk_/);
    const copy = page.getByRole('button', { name: 'Copy client secret' });
    assert.ok(await copy.isVisible(), 'the copy button is shown with the script');
    await copy.click();
    await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), clientSecret);

    const token = await fetch(`${api}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }),
    });
    assert.equal(token.status, 200);
    const { access_token } = (await token.json()) as { access_token: string };
    const events = await fetch(`${api}/v1/events`, { headers: { authorization: `Bearer ${access_token}` } });
    assert.equal(events.status, 200);
    const listed = (await events.json()) as { data: { events: { name: string }[] } };
    assert.equal(listed.data.events.length, 1);

    // An allowed domain added in the app: the API's CORS preflight from it passes at once.
    const origin = 'https://race-website.example.org';
    const preflight = () =>
      fetch(`${api}/v1/events`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-service-publishable-key',
        },
      });
    assert.equal((await preflight()).headers.get('access-control-allow-origin'), null);
    await page.getByRole('link', { name: "Continue to the client's settings" }).click();
    await page.getByLabel('Add an allowed domain').fill(origin);
    await page.getByRole('button', { name: 'Add' }).first().click();
    await page.getByText(origin).first().waitFor();
    await step(page, 'client-domain-added');
    const allowed = await preflight();
    assert.equal(allowed.headers.get('access-control-allow-origin'), origin);

    // Revoked in the app (after its confirmation): the client's next API request is refused 401.
    await page.getByRole('link', { name: 'Revoke' }).click();
    await step(page, 'client-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke API client' }).click();
    await page.getByText('revoked').first().waitFor();
    const refused = await fetch(`${api}/v1/events`, { headers: { authorization: `Bearer ${access_token}` } });
    assert.equal(refused.status, 401);

    assert.deepEqual(problems, []);
    await context.close();
  });

  test('the other pages pass axe at both widths: client settings, revoke, account, mailbox, errors', async () => {
    const partner = await makePartner(h);
    const member = await makeMember(h, partner.organizationId, 'owner');
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);

    await page.goto(`${app}/sign-in`);
    await page.getByLabel('Email', { exact: true }).fill(member.email);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
    await step(page, 'sign-in-error');
    await page.getByLabel('Password', { exact: true }).fill(member.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app}/`);

    await page.goto(`${app}/developers/clients/${partner.clientId}`);
    await step(page, 'client-settings');
    const displayName = page.getByLabel('Display name', { exact: true });
    await displayName.fill('A display name that runs on well past the sixty characters allowed');
    await page.getByRole('button', { name: 'Save display name' }).click();
    await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
    await step(page, 'client-display-name-error');
    await displayName.fill('Kampala Runners Club');
    await page.getByRole('button', { name: 'Save display name' }).click();
    await page.getByText('The display name was saved').waitFor();
    assert.equal(await displayName.inputValue(), 'Kampala Runners Club');
    await page.getByLabel('Add an allowed domain').fill('http://not-local.example.org');
    await page.getByRole('button', { name: 'Add', exact: true }).first().click();
    await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
    await step(page, 'client-domain-error');
    await page.getByRole('link', { name: 'Revoke' }).click();
    await step(page, 'client-revoke');
    await page.getByRole('button', { name: 'Revoke API client' }).click();
    await page.getByText('The client was revoked').waitFor();
    await step(page, 'client-revoked');

    await page.getByRole('link', { name: 'Account' }).click();
    await step(page, 'account');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
    await step(page, 'account-error');

    // exact: the account page also has "Sign out everywhere else"
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(/\/sign-in/);
    await page.goto(`${app}/password-reset`);
    await page.getByLabel('Email', { exact: true }).fill(member.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText('we have sent it a link').waitFor();
    await step(page, 'reset-sent');
    await page.goto(`${app}/dev/mailbox`);
    await step(page, 'mailbox');
    await page.getByRole('link', { name: 'Reset your organizer password' }).first().click();
    await step(page, 'mail');
    await page.getByRole('link', { name: /\/password-reset\// }).click();
    await step(page, 'new-password');
    await page.goto(`${app}/developers/clients/cli_ZZZZZZZZZZZZZZZZZZZZZZZZ`);
    await page.goto(`${app}/nothing-here/but/html`);
    await page.goto(`${app}/invitations/NoSuchToken0123456789abcdefghijklmnopqrstu`);
    await step(page, 'invitation-unknown');

    assert.deepEqual(problems, []);
    await context.close();
  });
});
