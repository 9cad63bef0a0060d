// The check-in page in Chromium at a phone's width: a volunteer with the checker role signs in,
// checks in one runner found by search and one whose ticket QR code the camera reads (Chromium's
// fake camera plays a video made here from the real ticket's address; debian's Chromium has no
// BarcodeDetector, so the page's own ZXing decoder reads it), sees the duplicate warning, loses
// the connection, checks in three more (a reload offline keeps them), comes back, and every
// check-in reaches the server once. A second volunteer's later check-in of the same runner is told
// the earlier time. Each state is screenshot at 360 and 1280 px with axe finding nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq, isNull } from 'drizzle-orm';
import QRCode from 'qrcode';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { checkIns } from '../../src/checkin/checkin.schema.ts';
import { members } from '../../src/members/members.schema.ts';
import type { RaceEvent } from '../../src/startlists/race-event.ts';
import { issueEventTickets } from '../../src/tickets/index.ts';
import { tickets } from '../../src/tickets/tickets.schema.ts';
import { launchBrowser, screenshot, startListeningHarness, watchProblems } from '../e2e/browser-helpers.ts';
import { axeViolations } from '../app/app-browser.ts';
import { makeMember, type TestMember } from '../app/app-helpers.ts';
import { makePartner, type Harness } from '../helpers/harness.ts';
import { waitFor } from '../helpers/wait.ts';
import { addRunners, makeRace } from './checkin-helpers.ts';

const SUITE_TIMEOUT_MS = 240_000;
const RUNNERS = [
  'Achieng Ruth',
  'Babirye Joan',
  'Cheptoo Mercy',
  'Dembe Ivan',
  'Ejang Sarah',
  'Fumo Peter',
  'Gita Rose',
  'Hamis Ali',
];

let h: Harness;
let app: string;
let browser: Browser;
let race: RaceEvent;
let ann: TestMember;
let bob: TestMember;
let ids: string[];
let ticketUrl: string;

/**
 * A YUV4MPEG2 video (4:2:0) of a QR code, black modules on white with a wide quiet zone, a few
 * frames: Chromium loops the file as the camera's picture.
 */
function qrVideo(text: string): string {
  const qr = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const { size, data } = qr.modules;
  const [width, height] = [640, 480];
  const scale = Math.floor(400 / (size + 8));
  const left = Math.floor((width - size * scale) / 2);
  const top = Math.floor((height - size * scale) / 2);
  const y = Buffer.alloc(width * height, 235);
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      if (!data[row * size + col]) continue;
      for (let dy = 0; dy < scale; dy++) {
        y.fill(
          16,
          (top + row * scale + dy) * width + left + col * scale,
          (top + row * scale + dy) * width + left + (col + 1) * scale,
        );
      }
    }
  }
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128);
  const frame = Buffer.concat([Buffer.from('FRAME\n'), y, chroma]);
  const file = join(mkdtempSync(join(tmpdir(), 'checkin-camera-')), 'ticket.y4m');
  writeFileSync(
    file,
    Buffer.concat([
      Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`),
      ...Array(5).fill(frame),
    ]),
  );
  return file;
}

before(
  async () => {
    const started = await startListeningHarness({ RUN_JOBS: 'false' });
    h = started.h;
    app = h.config.appUrl.origin;
    const partner = await makePartner(h);
    race = await makeRace(h, partner);
    ids = await addRunners(
      h,
      race,
      RUNNERS.map((name, i) => ({
        name,
        answers: {
          tshirt: ['S', 'M', 'L'][i % 3]!,
          ...(i === 0 && { emergency_contact_name: 'Okoth Paul', emergency_contact_phone: '+256772000111' }),
        },
      })),
    );
    const db = h.service.ctx.database.db;
    ann = await makeMember(h, partner.organizationId, 'checker');
    bob = await makeMember(h, partner.organizationId, 'checker');
    await db.update(members).set({ name: 'Ann' }).where(eq(members.id, ann.memberId));
    await db.update(members).set({ name: 'Bob' }).where(eq(members.id, bob.memberId));
    await issueEventTickets(
      db,
      {
        organizationId: partner.organizationId,
        eventId: race.event.id,
        ticketTypeIds: race.ticketTypes.map((t) => t.id),
      },
      h.clock.now(),
    );
    const [ticket] = await db.select().from(tickets).where(eq(tickets.registrationId, ids[1]!));
    ticketUrl = `${h.config.siteUrl.origin}/tickets/${ticket!.token}`;
    browser = await launchBrowser([
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-video-capture=${qrVideo(ticketUrl)}`,
    ]);
  },
  { timeout: 60_000 },
);

after(async () => {
  await browser?.close();
  await h?.close();
});

async function openCheckIn(
  member: TestMember,
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 360, height: 800 } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await page.goto(`${app}/sign-in`);
  await page.getByLabel('Email', { exact: true }).fill(member.email);
  await page.getByLabel('Password', { exact: true }).fill(member.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${app}/check-in`);
  await page.getByRole('link', { name: race.event.name }).click();
  await page.waitForURL(`${app}/check-in/${race.event.id}`);
  await page.getByText('Online: every check-in is sent.').waitFor();
  return { context, page, problems };
}

/** axe finds nothing, nothing scrolls sideways, and a screenshot, at 360 and 1280 px. */
async function checkState(page: Page, name: string) {
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: 800 });
    assert.deepEqual(await axeViolations(page), [], `axe on ${name} at ${width} px`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${name} fits ${width} px (overflow ${overflow})`);
    await screenshot(page, `${name}-${width}`);
  }
}

async function searchAndCheckIn(page: Page, name: string, volunteer: string) {
  await page.getByLabel('Name, bib, phone or ticket code').fill(name.split(' ')[0]!);
  const card = page.locator('.runner-card', { hasText: name });
  await card.getByRole('button', { name: `Check in ${name}` }).click();
  await card.getByText(new RegExp(`Checked in at \\d\\d:\\d\\d by ${volunteer}`)).waitFor();
}

const localTime = (at: Date, second?: '2-digit') =>
  new Intl.DateTimeFormat('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    second,
    timeZone: race.event.timezone,
  }).format(at);

test(
  'a checker checks in by search and by scan, offline and back, and a conflict shows the earlier time',
  { timeout: SUITE_TIMEOUT_MS },
  async () => {
    const db = h.service.ctx.database.db;
    const liveRows = () =>
      db
        .select()
        .from(checkIns)
        .where(
          and(eq(checkIns.eventId, race.event.id), eq(checkIns.state, 'live'), isNull(checkIns.undoneAt)),
        );
    const { context, page, problems } = await openCheckIn(ann);

    // by search: results as the name is typed
    await page.getByLabel('Name, bib, phone or ticket code').fill('Achi');
    await page.getByRole('button', { name: 'Check in Achieng Ruth' }).waitFor();
    assert.match(await page.locator('.runner-card').first().innerText(), /Okoth Paul, \+256772000111/);
    await checkState(page, 'checkin-search');
    await page.getByRole('button', { name: 'Check in Achieng Ruth' }).click();
    await page.getByText(/Checked in at \d\d:\d\d by Ann/).waitFor();
    await checkState(page, 'checkin-checked-in');

    // by scan: the camera reads the real ticket's QR code
    await page.getByRole('button', { name: 'Scan a ticket' }).click();
    await page.getByRole('button', { name: 'Check in Babirye Joan' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Check in Babirye Joan' }).click();
    await page.getByText('Babirye Joan is checked in.').waitFor();
    await page.getByRole('button', { name: 'Close camera' }).click();
    await waitFor('two check-ins on the server', async () => (await liveRows()).length === 2);

    // the same ticket again: the loud warning
    await page.getByRole('button', { name: 'Scan a ticket' }).click();
    const warning = page.locator('.checkin-alert.bad', {
      hasText: /Already checked in at \d\d:\d\d by Ann: Babirye Joan/,
    });
    await warning.waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Close camera' }).click();
    const [joan] = (await liveRows()).filter((r) => r.registrationId === ids[1]);
    assert.match(await warning.innerText(), new RegExp(`at ${localTime(joan!.checkedInAt)} by Ann`));
    await checkState(page, 'checkin-duplicate');

    // offline: three more, kept on the phone, through a reload
    await context.setOffline(true);
    await page.getByText(/^Offline/).waitFor();
    for (const name of ['Cheptoo Mercy', 'Dembe Ivan', 'Ejang Sarah'])
      await searchAndCheckIn(page, name, 'Ann');
    await page.getByText('3 check-ins waiting to send').waitFor();
    const ejangAt = new Date();
    await checkState(page, 'checkin-offline');
    await page.reload();
    await page.getByText('3 check-ins waiting to send').waitFor();
    await page.getByLabel('Name, bib, phone or ticket code').fill('Ejang');
    await page.getByText(/Checked in at \d\d:\d\d by Ann/).waitFor();

    // a second volunteer, online, checks in the same runner later
    const second = await openCheckIn(bob);
    await searchAndCheckIn(second.page, 'Ejang Sarah', 'Bob');
    await waitFor("Bob's check-in", async () => (await liveRows()).some((r) => r.memberName === 'Bob'));

    // back online: everything is sent once, and the earlier tap wins
    await context.setOffline(false);
    await page.getByText('Online: every check-in is sent.').waitFor({ timeout: 30_000 });
    await page.getByText('5 of 8 runners checked in').waitFor();
    const live = await liveRows();
    assert.equal(live.length, 5);
    assert.ok(live.every((r) => r.memberName === 'Ann'));
    const annRows = (await db.select().from(checkIns).where(eq(checkIns.eventId, race.event.id))).filter(
      (r) => r.memberName === 'Ann',
    );
    assert.equal(annRows.length, 5, 'no duplicate');
    const ejang = live.find((r) => r.registrationId === ids[4])!;
    assert.ok(ejang.checkedInAt <= ejangAt);
    const lost = second.page.locator('.checkin-alert.bad', {
      hasText: `Ejang Sarah was already checked in at ${localTime(ejang.checkedInAt, '2-digit')} by Ann`,
    });
    await lost.waitFor({ timeout: 20_000 });
    await checkState(second.page, 'checkin-conflict');
    assert.deepEqual(problems, []);
    assert.deepEqual(second.problems, []);
    await second.context.close();
    await context.close();
  },
);
