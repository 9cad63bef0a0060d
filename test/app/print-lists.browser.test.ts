// The start list and the pickup list in Chromium, on screen and printed: under print media the
// header, navigation, forms, buttons and download links are gone (computed display: none), every
// runner is one line (tables stay tables at a phone's width), and each ticket type of the pickup
// list starts a page. axe finds nothing on screen or in print; screenshots at 360 px and 1280 px.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { findRaceEvent } from '../../src/startlists/race-event.ts';
import {
  CHROMIUM,
  launchBrowser,
  screenshot,
  startListeningHarness,
  watchProblems,
} from '../e2e/browser-helpers.ts';
import { makeEvent, makePartner, type Harness } from '../helpers/harness.ts';
import { seedRunners } from '../startlists/seed-runners.ts';
import { axeViolations, checkPage, signInPage, WIDTHS } from './app-browser.ts';
import { makeMember, signIn } from './app-helpers.ts';

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

/** What must not be on paper: each such element's computed display, when it is not none. */
async function shownOnPaper(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const selectors = ['header.top', 'nav', 'form', 'button', 'a.button', '.skip', '.no-print'];
    const shown: string[] = [];
    for (const selector of selectors) {
      for (const element of document.querySelectorAll(selector)) {
        const display = getComputedStyle(element).display;
        if (display !== 'none') shown.push(`${selector} (${display})`);
      }
    }
    return shown;
  });
}

/** Rows of runners taller than one line of text, with their text. */
async function wrappedRows(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const wrapped: string[] = [];
    for (const row of document.querySelectorAll<HTMLTableRowElement>('main table tbody tr')) {
      const cell = row.cells[0]!;
      const line = parseFloat(getComputedStyle(cell).lineHeight) || 16;
      if (getComputedStyle(row).display !== 'table-row' || row.getBoundingClientRect().height > line * 1.8) {
        wrapped.push(row.innerText.replace(/\s+/g, ' '));
      }
    }
    return wrapped;
  });
}

/** The page on paper at each width: nothing but the lists, a line per runner, axe clean, screenshots. */
async function checkPrint(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ media: 'print' });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    assert.deepEqual(await shownOnPaper(page), [], `${name} on paper at ${width} px`);
    assert.deepEqual(await wrappedRows(page), [], `${name}: one line per runner at ${width} px`);
    assert.deepEqual(await axeViolations(page), [], `axe on ${name} printed at ${width} px`);
    await screenshot(page, `${name}-print-${width}`);
  }
  await page.emulateMedia({ media: 'screen' });
}

describe('printing the start list and the pickup list', () => {
  test('an organizer prints the start list and a pickup list per ticket type', async () => {
    const partner = await makePartner(h);
    const member = await makeMember(h, partner.organizationId, 'owner');
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
    const [tenKm, fiveKm] = race.ticketTypes;
    const names = [
      'Akello Grace',
      'Okello James',
      'Ssekitoleko-Müller Nakalembe Christine',
      'Kato Brian',
      'Namuli Ruth',
    ];
    await seedRunners(
      db,
      event,
      tenKm!,
      names.map((name, i) => ({
        name,
        dateOfBirth: `19${80 + i}-05-0${i + 1}`,
        answers: { tshirt: 'SML'[i % 3]! },
      })),
    );
    await seedRunners(db, event, fiveKm!, [
      { name: 'Achieng Mary', answers: { tshirt: 'S' } },
      { name: 'Wasswa Peter', answers: { tshirt: 'L' } },
    ]);
    // numbers for the 10 km only: the 5 km runners print without one
    const owner = await signIn(h, member);
    await owner.get(`/events/${event.id}/start-list`);
    await owner.post(`/events/${event.id}/bib-ranges`, {
      [`first_${tenKm!.id}`]: '1',
      [`last_${tenKm!.id}`]: '2999',
      [`first_${fiveKm!.id}`]: '',
      [`last_${fiveKm!.id}`]: '',
    });
    assert.equal((await owner.post(`/events/${event.id}/bibs/assign`)).statusCode, 303);

    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, member);

    await page.goto(`${app}/events/${event.id}/start-list`);
    await checkPage(page, 'print-start-list-screen');
    await checkPrint(page, 'print-start-list');

    await page.getByRole('link', { name: 'Pickup list to print' }).first().click();
    await page.waitForURL(`${app}/events/${event.id}/pickup-list`);
    await page.getByRole('heading', { name: 'Pickup list: Kampala Lakeside Marathon' }).waitFor();
    const sections = page.locator('section.print-page');
    assert.equal(await sections.count(), 2);
    assert.match(await sections.nth(0).innerText(), /10 km \(5 runners\)[\s\S]*1\s+Akello Grace\s+S/);
    assert.match(await sections.nth(1).innerText(), /5 km \(2 runners\)[\s\S]*None\s+Achieng Mary\s+S/);
    await checkPage(page, 'print-pickup-list-screen');
    await checkPrint(page, 'print-pickup-list');
    await page.emulateMedia({ media: 'print' });
    const breaks = await sections.evaluateAll((all) => all.map((s) => getComputedStyle(s).breakBefore));
    assert.deepEqual(breaks, ['auto', 'page'], 'each ticket type after the first starts a page');
    await page.emulateMedia({ media: 'screen' });

    await page.getByRole('link', { name: 'Name', exact: true }).click();
    await page.waitForURL(`${app}/events/${event.id}/pickup-list?order=name`);
    const byName = await sections.nth(0).innerText();
    assert.ok(byName.indexOf('Akello Grace') < byName.indexOf('Kato Brian'), byName);
    assert.ok(byName.indexOf('Kato Brian') < byName.indexOf('Namuli Ruth'), byName);
    await checkPrint(page, 'print-pickup-list-by-name');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
