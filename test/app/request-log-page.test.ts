// The API request log page of the organizer app: it lists the organization's requests newest
// first, filters by client, answers another organization's client with the 404 page, is open to a
// viewer, and in Chromium has no axe violation, fits 360 px and works from the keyboard alone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { insertApiClient } from '../../src/auth/clients.ts';
import { launchBrowser, screenshot, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import { bearer, getToken, makePartner, type Harness, type TestPartner } from '../helpers/harness.ts';
import { axeViolations } from './app-browser.ts';
import { Agent, makeMember, signIn, textOf, type TestMember } from './app-helpers.ts';

let h: Harness;
let mine: TestPartner;
let theirs: TestPartner;
let secondClientId: string;
let viewerMember: TestMember;
let viewer: Agent;
let developer: Agent;
let browser: Browser | undefined;

/** One GET /v1/events with the client's token; the request id. */
async function callApi(
  partner: TestPartner,
  clientSecret = partner.clientSecret,
  clientId = partner.clientId,
) {
  const token = await getToken(h, { ...partner, clientId, clientSecret });
  const res = await h.service.api.inject({ url: '/v1/events?secret_marker=1', headers: bearer(token) });
  return String(res.headers['x-request-id']);
}

before(async () => {
  ({ h } = await startListeningHarness());
  mine = await makePartner(h);
  theirs = await makePartner(h);
  const second = await insertApiClient(h.service.ctx.database.db, {
    organizationId: mine.organizationId,
    name: 'Box office',
    scopes: ['events:read'],
    allowedDomains: [],
    returnUrlDomains: [],
  });
  secondClientId = second.client.id;
  await callApi(mine);
  await callApi(mine, second.clientSecret, second.client.id);
  await callApi(theirs);
  await h.service.ctx.requestLog.flush();
  viewerMember = await makeMember(h, mine.organizationId, 'viewer');
  viewer = await signIn(h, viewerMember);
  developer = await signIn(h, await makeMember(h, mine.organizationId, 'developer'));
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await h?.close();
});

/** The request ids in the page's table, in order. */
function requestIds(body: string): string[] {
  return [...body.matchAll(/<td data-label="Request id"><code>(req_[A-Za-z0-9]+)<\/code><\/td>/g)].map(
    (m) => m[1]!,
  );
}

describe('the API request log page', () => {
  test("lists the organization's requests, newest first, for a viewer too", async () => {
    const res = await viewer.get('/developers/requests');
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    const text = textOf(res.body);
    assert.match(text, /Only the last 100 are kept/);
    assert.match(text, /a few seconds/);
    for (const heading of ['Time', 'Client', 'Method', 'Path', 'Status', 'Error code', 'Request id']) {
      assert.match(res.body, new RegExp(`<th scope="col">${heading}</th>`));
    }
    // two token requests and two event lists of this organization; none of the other's
    assert.equal(requestIds(res.body).length, 4);
    assert.match(res.body, /<code>\/v1\/events<\/code>/);
    assert.doesNotMatch(res.body, /secret_marker/);
    assert.doesNotMatch(res.body, new RegExp(theirs.clientId));
    assert.match(text, /Box office/);
    assert.match(text, /Test client/);
    assert.equal((await developer.get('/developers/requests')).statusCode, 200);
  });

  test('the client filter shows one client, and All shows every one', async () => {
    const one = await viewer.get(`/developers/requests?client=${secondClientId}`);
    assert.equal(one.statusCode, 200);
    assert.equal(requestIds(one.body).length, 2);
    assert.match(one.body, new RegExp(`<option value="${secondClientId}"\\s+selected>`));
    assert.doesNotMatch(textOf(one.body).split('Request id')[1]!, /Test client/);
    const all = await viewer.get('/developers/requests?client=');
    assert.equal(requestIds(all.body).length, 4);
    assert.match(all.body, /<option value=""\s+selected>/);
  });

  test("another organization's client, or none, is the 404 page", async () => {
    const answers = [];
    for (const client of [theirs.clientId, 'cli_ZZZZZZZZZZZZZZZZZZZZZZZZ']) {
      const res = await viewer.get(`/developers/requests?client=${client}`);
      assert.equal(res.statusCode, 404);
      assert.doesNotMatch(res.body, /<table/);
      answers.push(res.body.replace(/name="_csrf" value="[^"]+"/g, ''));
    }
    assert.equal(answers[0], answers[1]);
  });

  test('an organization without requests sees the empty state', async () => {
    const partner = await makePartner(h);
    const agent = await signIn(h, await makeMember(h, partner.organizationId, 'viewer'));
    const res = await agent.get('/developers/requests');
    assert.equal(res.statusCode, 200);
    assert.match(textOf(res.body), /No API requests yet\./);
    assert.doesNotMatch(res.body, /<table/);
  });
});

describe('the page in Chromium', () => {
  test('no axe violation, fits 360 px and desktop, and the filter works from the keyboard', async () => {
    const app = h.config.appUrl.origin;
    const context = await browser!.newContext({
      viewport: { width: 360, height: 800 },
    });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${app}/sign-in`);
    await page.getByLabel('Email', { exact: true }).fill(viewerMember.email);
    await page.getByLabel('Password', { exact: true }).fill(viewerMember.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app}/`);
    await page.goto(`${app}/developers/requests`);

    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      assert.deepEqual(await axeViolations(page), [], `axe at ${width} px`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `fits ${width} px (overflow ${overflow})`);
      await screenshot(page, `app-request-log-${width}`);
    }

    // Keyboard only: focus the select, pick the second client, submit with Enter.
    await page.getByLabel('Client').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(/client=cli_/);
    const chosen = new URL(page.url()).searchParams.get('client');
    assert.ok(chosen === secondClientId || chosen === mine.clientId, String(chosen));
    assert.equal(await page.locator('tbody tr').count(), 2);
    await screenshot(page, 'app-request-log-filtered-1280');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
