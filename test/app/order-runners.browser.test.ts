// An owner at 360 px in Chromium opens an order of two runners, corrects the first runner's name
// (a mistake first: the form comes back with the error by its field), and transfers the second
// runner's place; the old ticket's page then says it was transferred. Axe with no violation,
// nothing scrolling sideways, and screenshots at 360 px and 1280 px of the order page, the
// correction form with its error and the transfer form.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { findEvent } from '../../src/events/events.ts';
import { issueTickets } from '../../src/tickets/index.ts';
import { launchBrowser, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import { bearer, getToken, makeEvent, makePartner, type Harness } from '../helpers/harness.ts';
import { checkPage, signInPage } from './app-browser.ts';
import { makeMember } from './app-helpers.ts';

let h: Harness;
let app: string;
let browser: Browser;

before(async () => {
  ({ h } = await startListeningHarness({ RUN_JOBS: 'false' }));
  app = h.config.appUrl.origin;
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await h?.close();
});

describe('runners in Chromium', () => {
  test('an owner corrects a runner and transfers another runner’s place at 360 px', async () => {
    const partner = await makePartner(h);
    const owner = await makeMember(h, partner.organizationId, 'owner');
    const event = await makeEvent(h, partner, {
      name: 'Jinja Source of the Nile Half Marathon',
      waiver_required: true,
      waiver_version: '2026-1',
      additional_questions: [
        {
          key: 'tshirt',
          label: 'T-shirt size',
          type: 'select',
          required: true,
          options: ['S', 'M', 'L'],
          help: '',
        },
        { key: 'club', label: 'Running club', type: 'text', required: false, options: [], help: '' },
      ],
      ticket_types: [
        { name: 'Half marathon', price_minor: 0, capacity: 100, distance_km: 21.1, min_age: 18 },
        { name: 'Fun run', price_minor: 0, capacity: 100, distance_km: 5 },
      ],
    });
    const found = (await findEvent(h.service.ctx.database.db, event.id))!;
    const [half, fun] = ['Half marathon', 'Fun run'].map((n) => found.ticketTypes.find((t) => t.name === n)!);
    const res = await h.service.api.inject({
      method: 'POST',
      url: '/v1/orders',
      headers: bearer(await getToken(h, partner)),
      payload: {
        event_id: event.id,
        items: [
          {
            ticket_type_id: half!.id,
            participant_name: 'Nakato Amnia',
            date_of_birth: '1990-05-01',
            answers: { tshirt: 'M', club: 'Kampala Hash House Harriers' },
          },
          { ticket_type_id: fun!.id, participant_name: 'Okello Brian', answers: { tshirt: 'S' } },
        ],
        buyer: { name: 'Nakato Amina', email: 'nakato@example.org', phone: '0772123456' },
        waiver_accepted: true,
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const order = res.json().data as { id: string; order_code: string };
    const [, oldTicket] = await issueTickets(h.service.ctx.database.db, order.id, h.clock.now());

    const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
    const page = await context.newPage();
    const problems = watchProblems(page);
    await signInPage(page, app, owner);
    await page.goto(`${app}/orders/${order.id}`);
    await page.getByRole('heading', { name: 'Runners' }).waitFor();
    await checkPage(page, 'runners-01-order');

    // The first runner's name is misspelt: correct it, with a mistake on the way.
    await page.getByRole('link', { name: 'Correct details of Nakato Amnia' }).click();
    await page.getByRole('heading', { name: 'Correct Nakato Amnia' }).waitFor();
    await page.getByLabel('Full name').fill('Nakato Amina');
    await page.getByLabel('T-shirt size').selectOption('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'There is a problem' }).waitFor();
    assert.ok(await page.getByText('Answer "T-shirt size".').first().isVisible());
    await checkPage(page, 'runners-02-correct-error');
    await page.getByLabel('T-shirt size').selectOption('L');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText("The runner's details were saved.").waitFor();
    assert.ok(await page.getByRole('heading', { name: 'Nakato Amina', level: 3 }).isVisible());

    // The second runner cannot come: their place goes to someone else.
    await page.getByRole('link', { name: 'Transfer place of Okello Brian' }).click();
    await page.getByRole('heading', { name: "Transfer Okello Brian's place" }).waitFor();
    await checkPage(page, 'runners-03-transfer');
    await page.getByLabel('Full name').fill('Achieng Okoth');
    await page.getByLabel('Email').fill('achieng@example.org');
    await page.getByLabel('Mobile number (optional)').fill('0701234567');
    await page.getByLabel('Date of birth (optional)').fill('2001-03-04');
    await page.getByLabel('T-shirt size').selectOption('M');
    await page.getByRole('button', { name: 'Transfer the place' }).click();
    await page.getByText('The place was transferred').waitFor();
    assert.ok(await page.getByRole('heading', { name: 'Achieng Okoth', level: 3 }).isVisible());
    assert.equal(await page.locator('[data-ticket-state="valid"]').count(), 2);
    assert.ok(await page.getByText('Transfer notice sent to nakato@example.org').isVisible());
    assert.ok(await page.getByText("New runner's ticket email sent to achieng@example.org").isVisible());
    await checkPage(page, 'runners-04-transferred');

    // The old ticket's page says so, and names no one.
    const old = await page.goto(`${h.config.siteUrl.origin}/tickets/${oldTicket!.token}`);
    assert.equal(old?.status(), 410);
    await page.getByRole('heading', { name: 'Ticket transferred' }).waitFor();
    assert.equal(await page.getByText('Achieng').count(), 0);
    assert.equal(await page.getByText('Okello').count(), 0);
    await checkPage(page, 'runners-05-old-ticket');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
