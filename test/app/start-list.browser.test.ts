// Start lists in Chromium: an owner opens the events list, goes to the start list, gets a
// range error next to its field, saves the ranges, assigns bib numbers and downloads the start
// list as CSV. Every page: axe with no violations, no horizontal overflow, screenshots at 360 px
// and 1280 px.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { findRaceEvent } from '../../src/startlists/race-event.ts';
import { CHROMIUM, launchBrowser, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import { makeEvent, makePartner, type Harness } from '../helpers/harness.ts';
import { seedRunners } from '../startlists/seed-runners.ts';
import { checkPage, signInPage } from './app-browser.ts';
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

const step = (page: Page, name: string) => checkPage(page, `start-list-${name}`);

describe('start lists in Chromium', () => {
  test('an owner sets ranges, assigns bib numbers and exports the start list', async () => {
    const partner = await makePartner(h);
    const owner = await makeMember(h, partner.organizationId, 'owner');
    const db = h.service.ctx.database.db;
    const event = await makeEvent(h, partner, {
      name: 'Kampala Lakeside Marathon',
      additional_questions: [
        {
          key: 'tshirt',
          label: 'T-shirt size',
          type: 'select',
          required: true,
          options: ['S', 'M', 'L'],
          help: '',
        },
      ],
    });
    const race = (await findRaceEvent(db, partner.organizationId, event.id))!;
    const names = [
      'Akello Grace',
      'Okello James',
      'Namuli Ruth',
      'Ssekitoleko-Müller Nakalembe',
      'Kato Brian',
    ];
    await seedRunners(
      db,
      event,
      race.ticketTypes[0]!,
      names.map((name, i) => ({
        name,
        dateOfBirth: `19${80 + i}-05-0${i + 1}`,
        answers: { tshirt: 'SML'[i % 3]! },
      })),
    );
    await seedRunners(db, event, race.ticketTypes[1]!, [
      { name: 'Achieng Mary', answers: { tshirt: 'S' } },
      { name: '=HYPERLINK("x")', answers: { tshirt: 'M' } },
    ]);

    const context = await browser.newContext({
      viewport: { width: 360, height: 800 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, owner);

    await page.goto(`${app}/events`);
    await step(page, 'events');
    await page.getByRole('link', { name: 'Start list of Kampala Lakeside Marathon' }).click();
    await page.waitForURL(`${app}/events/${event.id}/start-list`);
    await step(page, 'empty');

    const tenKm = page.getByRole('group', { name: '10 km' });
    const fiveKm = page.getByRole('group', { name: '5 km' });
    await tenKm.getByLabel('First number').fill('10');
    await tenKm.getByLabel('Last number').fill('2');
    await page.getByRole('button', { name: 'Save ranges' }).click();
    await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
    assert.match(await tenKm.innerText(), /must be at least the first \(10\)/);
    await step(page, 'range-error');

    await tenKm.getByLabel('First number').fill('1');
    await tenKm.getByLabel('Last number').fill('2999');
    await fiveKm.getByLabel('First number').fill('5000');
    await fiveKm.getByLabel('Last number').fill('6999');
    await page.getByRole('button', { name: 'Save ranges' }).click();
    await page.getByText('The bib ranges were saved').waitFor();

    await page.getByRole('button', { name: 'Assign bib numbers' }).click();
    await page.getByText('Gave 7 new bib numbers').waitFor();
    const runners = page.getByRole('region', { name: 'Runners by ticket type and bib' });
    assert.match(await runners.innerText(), /1\s+Akello Grace\s+10 km/);
    assert.match(await runners.innerText(), /5000\s+Achieng Mary\s+5 km/);
    await step(page, 'assigned');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download start list (CSV)' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^kampala-lakeside-marathon-[a-z0-9]+-start-list\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    assert.equal(lines[0], 'Bib,Name,Ticket type,Age on race day,T-shirt size,Order code');
    assert.equal(lines.length, 8);
    assert.match(lines[1]!, /^1,Akello Grace,10 km,\d+,S,T/);
    assert.match(lines[4]!, /^4,Ssekitoleko-Müller Nakalembe,10 km,/);
    assert.match(lines[7]!, /^5001,"'=HYPERLINK\(""x""\)",5 km,,M,T/);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
