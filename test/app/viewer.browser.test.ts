// Members and roles in Chromium: an owner invites a viewer from the Members page (the link shown
// once with a copy button), the viewer accepts through the link and signs in, reads Overview,
// Developer settings, a client and Members with no write control anywhere; the viewer's forged
// POSTs (their own CSRF token) answer 403 and change nothing; no Audit log link, /audit-log is
// 403. The owner's audit log lists the invitation and the join. Every page: axe with no
// violations, no horizontal overflow, and screenshots at 360 px and 1280 px.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { findApiClient, listApiClients } from '../../src/auth/clients.ts';
import { createInvitation, listPendingInvitations } from '../../src/members/invitations.ts';
import { listOrganizationMembers } from '../../src/members/members.ts';
import { CHROMIUM, launchBrowser, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import { makePartner, type Harness } from '../helpers/harness.ts';
import { checkPage } from './app-browser.ts';
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

/** One page of the chain: checkPage (app-browser.ts) with this file's screenshot names. */
const step = (page: Page, name: string) => checkPage(page, `members-${name}`);

async function signInWith(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${app}/sign-in`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app}/`);
}

describe('members and the viewer role in Chromium', () => {
  test('owner invites a viewer, who reads everything, changes nothing, and has no audit log', async () => {
    const partner = await makePartner(h);
    const owner = await makeMember(h, partner.organizationId, 'owner');
    const db = h.service.ctx.database.db;
    const viewerEmail = 'new.viewer@example.org';
    const password = 'correct horse battery staple';

    // The owner invites from the Members page.
    const ownerContext = await browser.newContext({ viewport: { width: 360, height: 800 } });
    await ownerContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app });
    const ownerPage = await ownerContext.newPage();
    const ownerProblems = watchProblems(ownerPage);
    await signInWith(ownerPage, owner.email, owner.password);
    await ownerPage.getByRole('link', { name: 'Members' }).click();
    await ownerPage.waitForURL(`${app}/members`);
    await step(ownerPage, 'owner');
    await ownerPage.getByRole('button', { name: 'Send invitation' }).click();
    await ownerPage.getByRole('heading', { name: 'There is a problem' }).waitFor();
    await step(ownerPage, 'invite-error');
    await ownerPage.getByLabel('Email', { exact: true }).fill(viewerEmail);
    await ownerPage.getByLabel('Role', { exact: true }).selectOption('viewer');
    await ownerPage.getByRole('button', { name: 'Send invitation' }).click();
    await ownerPage.getByRole('heading', { name: 'Invitation created' }).waitFor();
    await step(ownerPage, 'invited');
    const link = (await ownerPage.locator('#invitation-link').innerText()).trim();
    assert.ok(link.startsWith(`${app}/invitations/`), link);
    await ownerPage.getByRole('button', { name: 'Copy invitation link' }).click();
    await ownerPage.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await ownerPage.evaluate(() => navigator.clipboard.readText()), link);

    // The viewer accepts through the link, then signs in again.
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(link);
    await step(page, 'viewer-invitation');
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    await page.waitForURL(`${app}/`);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(/\/sign-in/);
    await signInWith(page, viewerEmail, password);
    await step(page, 'viewer-overview');
    assert.equal(await page.getByRole('link', { name: 'Audit log' }).count(), 0, 'no Audit log link');

    // Reads everything, with no write control.
    await page.getByRole('link', { name: 'Developer settings' }).click();
    await page.waitForURL(`${app}/developers`);
    await step(page, 'viewer-developers');
    assert.equal(await page.getByRole('link', { name: 'Create API client' }).count(), 0);
    await page.goto(`${app}/developers/clients/${partner.clientId}`);
    await step(page, 'viewer-client');
    assert.equal(await page.locator('main form').count(), 0, 'no form on the client page');
    await page.getByRole('link', { name: 'Members' }).click();
    await page.waitForURL(`${app}/members`);
    await step(page, 'viewer-members');
    assert.equal(await page.locator('main form').count(), 0, 'no form on the members page');
    assert.equal(await page.getByRole('link', { name: 'Remove' }).count(), 0);
    await page.getByText(owner.email).waitFor();

    // Forged writes with the viewer's own CSRF token: 403 each, nothing changed.
    const pendingId = (
      await createInvitation(db, {
        organizationId: partner.organizationId,
        email: 'still-pending@example.org',
        role: 'developer',
        invitedBy: null,
        now: h.clock.now(),
      })
    ).invitation.id;
    const state = async () =>
      JSON.stringify([
        await listOrganizationMembers(db, partner.organizationId),
        await listPendingInvitations(db, partner.organizationId, h.clock.now()),
        await listApiClients(db, partner.organizationId),
        await findApiClient(db, partner.clientId),
      ]);
    const before = await state();
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const forged: [string, Record<string, string>][] = [
      ['/members/invitations', { email: 'forged@example.org', role: 'owner' }],
      [`/members/${owner.memberId}/role`, { role: 'viewer' }],
      [`/members/${owner.memberId}/remove`, {}],
      [`/members/invitations/${pendingId}/revoke`, {}],
      ['/developers/clients', { name: 'Forged', scopes: 'events:read' }],
      [`/developers/clients/${partner.clientId}/rotate-secret`, {}],
      [`/developers/clients/${partner.clientId}/revoke`, {}],
    ];
    for (const [path, fields] of forged) {
      const res = await page.request.post(`${app}${path}`, { form: { _csrf: csrf, ...fields } });
      assert.equal(res.status(), 403, path);
      assert.match(await res.text(), /Your role cannot do this/);
    }
    // The same as a form the browser submits itself (the page's CSP forbids fetch).
    const [answer] = await Promise.all([
      page.waitForResponse(
        (r) => r.url() === `${app}/members/invitations` && r.request().method() === 'POST',
      ),
      page.evaluate((token) => {
        const form = document.createElement('form');
        form.method = 'post';
        form.action = '/members/invitations';
        for (const [name, value] of [
          ['_csrf', token],
          ['email', 'submitted@example.org'],
          ['role', 'viewer'],
        ] as const) {
          const field = document.createElement('input');
          field.type = 'hidden';
          field.name = name;
          field.value = value;
          form.append(field);
        }
        document.body.append(form);
        form.submit();
      }, csrf),
    ]);
    assert.equal(answer.status(), 403);
    await page.getByRole('heading', { name: 'Your role cannot do this' }).waitFor();
    assert.equal(await state(), before, 'nothing changed');

    const refused = await page.goto(`${app}/audit-log`);
    assert.equal(refused?.status(), 403);
    await page.getByRole('heading', { name: 'Your role cannot do this' }).waitFor();
    await step(page, 'viewer-audit-refused');

    // The owner's audit log lists the invitation and the join.
    await ownerPage.goto(`${app}/members`);
    await ownerPage.getByText(viewerEmail).first().waitFor();
    await step(ownerPage, 'owner-after-join');
    await ownerPage.getByRole('link', { name: 'Audit log' }).click();
    await ownerPage.waitForURL(`${app}/audit-log`);
    await step(ownerPage, 'audit-log');
    const rows = await ownerPage.locator('tbody tr').allInnerTexts();
    assert.ok(
      rows.some((r) => r.includes('invited a member') && r.includes(owner.email) && r.includes(viewerEmail)),
      rows.join('\n'),
    );
    const joined = rows.find((r) => r.includes('joined'));
    assert.ok(joined, rows.join('\n'));
    assert.match(joined, new RegExp(viewerEmail.replace(/\./g, '\\.')));
    assert.match(joined, /Viewer/);
    assert.ok(rows.indexOf(joined) < rows.findIndex((r) => r.includes('invited a member')), 'newest first');

    assert.deepEqual(problems, []);
    assert.deepEqual(ownerProblems, []);
    await context.close();
    await ownerContext.close();
  });

  test('the remove confirmation and a refused last-owner change pass axe at both widths', async () => {
    const partner = await makePartner(h);
    const owner = await makeMember(h, partner.organizationId, 'owner');
    const developer = await makeMember(h, partner.organizationId, 'developer');
    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInWith(page, owner.email, owner.password);

    await page.goto(`${app}/members`);
    const row = page.getByRole('listitem').filter({ hasText: developer.email });
    await row.getByLabel(/^Role of/).selectOption('admin');
    await row.getByRole('button', { name: 'Change role' }).click();
    await page.getByText('The role was changed').waitFor();
    await step(page, 'role-changed');

    await page
      .getByRole('listitem')
      .filter({ hasText: developer.email })
      .getByRole('link', { name: 'Remove' })
      .click();
    await page.getByRole('heading', { name: /^Remove / }).waitFor();
    await step(page, 'remove-confirm');
    await page.getByRole('button', { name: 'Remove member' }).click();
    await page.getByText('The member was removed').waitFor();
    await step(page, 'removed');

    await page.goto(`${app}/members/${owner.memberId}/remove`);
    await page.getByText('Make another member an owner first').waitFor();
    await step(page, 'last-owner');

    assert.deepEqual(problems, []);
    await context.close();
  });
});
