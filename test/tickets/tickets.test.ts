// A ticket per runner: issued once for each confirmed registration of a paid order (again and at
// once gives the same tickets), never for pending or cancelled ones; the ticket page on the SITE
// host in English and Swahili with the bib once given; 404 pages for void, unknown and hostile
// tokens; and the tickets in the confirmation mail and on the confirmation page after payment.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import { findEvent } from '../../src/events/events.ts';
import { startSimulator, type Simulator } from '../../src/payments/simulator/simulator.ts';
import { bibs } from '../../src/startlists/startlists.schema.ts';
import { issueTickets, ticketsOfOrder } from '../../src/tickets/index.ts';
import { TICKET_CODE } from '../../src/tickets/ticket-codes.ts';
import { tickets } from '../../src/tickets/tickets.schema.ts';
import type { Harness } from '../helpers/harness.ts';
import {
  createSession,
  flat,
  fullForm,
  getPage,
  makeRace,
  postForm,
  readSession,
} from '../site/site-helpers.ts';
import { seedRunners } from '../startlists/seed-runners.ts';
import {
  createOrder,
  makeShop,
  payThroughSimulator,
  readOrder,
  startWebhookHarness,
  type Shop,
} from '../webhooks/webhook-helpers.ts';
import { confirmationMail, freeOrderOf, ticketLinks } from './ticket-helpers.ts';

let sim: Simulator;
let h: Harness;
let shop: Shop;

before(async () => {
  sim = await startSimulator({ timeScale: 0.01 });
  h = await startWebhookHarness({ SIMULATOR_URL: sim.url, PAYMENT_TIME_SCALE: '0.01', RUN_JOBS: 'false' });
  shop = await makeShop(h);
});
after(async () => {
  await h.close();
  await sim.close();
});

const db = () => h.service.ctx.database.db;
const now = () => h.clock.now();

async function ticketRows(orderId: string) {
  return db().select().from(tickets).where(eq(tickets.orderId, orderId));
}

/** The path of a ticket page, from an absolute link. */
const pathOf = (url: string) => new URL(url).pathname;

describe('issuing', () => {
  test('twice, or twice at once, gives the same tickets: one per runner', async () => {
    const order = await freeOrderOf(h, shop, ['Achieng', 'Brian', 'Cissy']);
    const [first, second] = await Promise.all([
      issueTickets(db(), order.id, now()),
      issueTickets(db(), order.id, now()),
    ]);
    const third = await issueTickets(db(), order.id, now());
    assert.equal(first.length, 3);
    assert.deepEqual(
      first.map((t) => t.participantName),
      ['Achieng', 'Brian', 'Cissy'],
    );
    for (const again of [second, third, await ticketsOfOrder(db(), order.id)]) {
      assert.deepEqual(
        again.map((t) => [t.registrationId, t.code, t.token]),
        first.map((t) => [t.registrationId, t.code, t.token]),
      );
    }
    assert.equal((await ticketRows(order.id)).length, 3, 'one row per registration');
    assert.ok(first.every((t) => t.status === 'valid' && t.bib === null && t.ticketLabel === 'Free 5 km'));
  });

  test('codes are unique and readable; tokens are 192 random bits in base64url', async () => {
    const order = await freeOrderOf(h, shop, ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J']);
    const issued = await issueTickets(db(), order.id, now());
    assert.equal(issued.length, 10);
    assert.equal(new Set(issued.map((t) => t.code)).size, 10);
    assert.equal(new Set(issued.map((t) => t.token)).size, 10);
    for (const t of issued) {
      assert.match(t.code, TICKET_CODE);
      assert.match(t.code, /^[A-HJ-NP-TW-Z2-9]{8}$/, 'no 0, O, 1, I, L, U or V');
      assert.match(t.token, /^[A-Za-z0-9_-]{32}$/);
      assert.equal(Buffer.from(t.token, 'base64url').length, 24);
    }
  });

  test('a pending order, a cancelled registration and a refunded order get no ticket', async () => {
    const pending = await createOrder(h, shop, shop.paidTicket);
    assert.equal(pending.status, 'pending');
    assert.deepEqual(await issueTickets(db(), pending.id, now()), []);
    assert.equal((await ticketRows(pending.id)).length, 0);

    const found = (await findEvent(db(), shop.eventId))!;
    const type = found.ticketTypes.find((t) => t.id === shop.freeTicket)!;
    const seeded = await seedRunners(db(), found.event, type, [
      { name: 'Cancelled in a paid order', status: 'cancelled' },
      { name: 'Refunded', orderStatus: 'refunded', status: 'cancelled' },
      { name: 'Still pending', orderStatus: 'pending', status: 'pending' },
    ]);
    const orderIds = await h.service.ctx.database.rows<{ order_id: string }>(
      sql`SELECT order_id FROM registrations WHERE id IN (${sql.join(seeded, sql`, `)})`,
    );
    for (const { order_id } of orderIds) {
      assert.deepEqual(await issueTickets(db(), order_id, now()), []);
      assert.equal((await ticketRows(order_id)).length, 0);
    }
  });
});

describe('the ticket page', () => {
  test('shows the event, runner, ticket type, code and a QR code, with the pages’ headers', async () => {
    const order = await freeOrderOf(h, shop, ['Nakato Amina']);
    const [ticket] = await issueTickets(db(), order.id, now());
    const res = await getPage(h, `/tickets/${ticket!.token}`);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<html lang="en">/);
    assert.match(res.body, /<h1>Test Run<\/h1>/);
    assert.match(res.body, /Nakato Amina<\/p>/);
    assert.match(res.body, /<dt>Ticket type<\/dt><dd>Free 5 km<\/dd>/);
    assert.match(res.body, /<dd data-bib>Not given yet<\/dd>/);
    const spaced = `${ticket!.code.slice(0, 4)} ${ticket!.code.slice(4)}`;
    assert.match(res.body, new RegExp(`<dd class="big" data-code>${spaced}</dd>`));
    assert.match(res.body, /<div class="qr" role="img" aria-label="QR code of this ticket" data-qr><svg/);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
    assert.match(csp, /style-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
    assert.match(csp, /worker-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    assert.equal(res.headers['cache-control'], 'no-store');

    const worker = await h.service.site.inject({ url: '/tickets/sw.js' });
    assert.equal(worker.statusCode, 200);
    assert.match(String(worker.headers['content-type']), /^text\/javascript/);
    assert.match(worker.body, /addEventListener\('fetch'/);
  });

  test('in Swahili by Accept-Language or ?lang=sw', async () => {
    const order = await freeOrderOf(h, shop, ['Wanjiru']);
    const [ticket] = await issueTickets(db(), order.id, now());
    for (const [url, headers] of [
      [`/tickets/${ticket!.token}`, { 'accept-language': 'sw-KE,sw;q=0.9,en;q=0.5' }],
      [`/tickets/${ticket!.token}?lang=sw`, {}],
    ] as const) {
      const res = await getPage(h, url, headers);
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /<html lang="sw">/);
      assert.match(res.body, /Tiketi ya mbio/);
      assert.match(res.body, /<dt>Aina ya tiketi<\/dt>/);
      assert.match(res.body, /Bado haijatolewa/);
      assert.match(res.body, /hreflang="en"/);
    }
    const missing = await getPage(h, `/tickets/${'x'.repeat(32)}`, { 'accept-language': 'sw' });
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, /Tiketi haijapatikana/);
  });

  test('shows the bib number once the start list gives one', async () => {
    const order = await freeOrderOf(h, shop, ['Okello', 'Apio']);
    const [okello, apio] = await issueTickets(db(), order.id, now());
    await db().insert(bibs).values({
      registrationId: okello!.registrationId,
      eventId: shop.eventId,
      ticketTypeId: shop.freeTicket,
      number: 4207,
      assignedAt: now(),
    });
    const res = await getPage(h, `/tickets/${okello!.token}`);
    assert.match(res.body, /<dt>Bib number<\/dt><dd class="big" data-bib>4207<\/dd>/);
    const other = await getPage(h, `/tickets/${apio!.token}`);
    assert.match(other.body, /<dd data-bib>Not given yet<\/dd>/);
    const listed = await ticketsOfOrder(db(), order.id);
    assert.deepEqual(
      listed.map((t) => t.bib),
      [4207, null],
    );
  });

  test('a void ticket, or one whose order was refunded, is a 404 page', async () => {
    const order = await freeOrderOf(h, shop, ['Void', 'Refunded']);
    const [voided, refunded] = await issueTickets(db(), order.id, now());
    await db().update(tickets).set({ status: 'void' }).where(eq(tickets.id, voided!.id));
    const res = await getPage(h, `/tickets/${voided!.token}`);
    assert.equal(res.statusCode, 404);
    assert.match(res.body, /Ticket not found/);
    assert.match(String(res.headers['content-security-policy']), /style-src 'self' 'sha256-/);
    // Issuing again never replaces a void ticket.
    const again = await issueTickets(db(), order.id, now());
    assert.deepEqual(
      again.map((t) => [t.token, t.status]),
      [
        [voided!.token, 'void'],
        [refunded!.token, 'valid'],
      ],
    );

    await h.service.ctx.database.rows(
      sql`UPDATE registrations SET status = 'cancelled' WHERE id = ${refunded!.registrationId}`,
    );
    assert.equal((await getPage(h, `/tickets/${refunded!.token}`)).statusCode, 404);
  });

  test('unknown and hostile tokens are 404, never 500', async () => {
    const hostile = [
      'A'.repeat(32),
      'x',
      'A'.repeat(31),
      'A'.repeat(33),
      'A'.repeat(300),
      'A'.repeat(5000),
      '%00',
      '%00'.repeat(16),
      '..%2F..%2Fetc%2Fpasswd',
      '%3Cscript%3Ealert(1)%3C%2Fscript%3E',
      "'%20OR%201=1--",
      '%E2%80%AEabc',
      '%F0%9F%8F%83'.repeat(11),
      '%',
      'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%25',
      'a/b/c',
    ];
    for (const token of hostile) {
      const res = await h.service.site.inject({ url: `/tickets/${token}` });
      assert.equal(res.statusCode, 404, `${token.slice(0, 40)}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
  });
});

describe('the confirmation', () => {
  test('the mail of a paid order gives each runner’s ticket code and link', async () => {
    const paid = await payThroughSimulator(h, sim, shop, 'momo');
    const code = String((await readOrder(h, shop, paid.orderId)).order_code);
    const mail = await confirmationMail(h, code);
    const [ticket] = await ticketsOfOrder(db(), paid.orderId);
    assert.ok(ticket, 'issued when the mail was made');
    const link = `${h.config.siteUrl.origin}/tickets/${ticket.token}`;
    assert.match(
      mail.text,
      new RegExp(`^- Ann: 10 km\\n {2}Ticket code: ${ticket.code}\\n {2}${link}$`, 'm'),
    );
    const html = flat(mail.html!);
    assert.match(html, new RegExp(`Ticket code:<strong[^>]*>${ticket.code}</strong>`));
    assert.match(html, new RegExp(`<a href="${link}">Open Ann&#39;s ticket</a>`));
    assert.doesNotMatch(html, /<img|<svg/, 'no QR image in the mail');

    const free = await freeOrderOf(h, shop, ['Achieng Okoth', 'Brian Okello']);
    const freeMail = await confirmationMail(h, free.order_code);
    const issued = await ticketsOfOrder(db(), free.id);
    assert.deepEqual(
      ticketLinks(freeMail.text),
      issued.map((t) => `${h.config.siteUrl.origin}/tickets/${t.token}`),
    );
    for (const t of issued) {
      assert.match(freeMail.text, new RegExp(`^ {2}Ticket code: ${t.code}$`, 'm'));
      const page = await getPage(h, pathOf(ticketLinks(freeMail.text)[issued.indexOf(t)]!));
      assert.equal(page.statusCode, 200);
      assert.match(page.body, new RegExp(t.participantName));
    }
  });

  test('the SITE confirmation page lists each runner’s ticket, with the bib once given', async () => {
    const race = await makeRace(h);
    const id = await createSession(h, race);
    const pay = await postForm(h, `/checkout/${id}/order`, fullForm(race, { ticket: 'free' }));
    assert.equal(pay.statusCode, 303);
    const session = await readSession(h, race, id);
    const page = await getPage(h, `/checkout/${id}`);
    assert.equal(page.statusCode, 200);
    const [ticket] = await ticketsOfOrder(db(), session.order!.id);
    assert.ok(ticket, 'issued by the page at the latest');
    assert.match(page.body, /<strong>Okello Brian<\/strong>: 5 km fun run/);
    assert.match(page.body, new RegExp(`<strong class="ticket-code">${ticket.code}</strong>`));
    assert.match(page.body, new RegExp(`<a href="/tickets/${ticket.token}">Open ticket</a>`));
    assert.doesNotMatch(page.body, /Bib number:/);
    const ticketPage = await getPage(h, `/tickets/${ticket.token}`);
    assert.match(ticketPage.body, /<h1>Kampala City 10K<\/h1>/);
    assert.match(ticketPage.body, /<p class="meta">Kololo Airstrip<\/p>/);
    assert.match(ticketPage.body, /<dd>5 km fun run<\/dd>/);

    await db().insert(bibs).values({
      registrationId: ticket.registrationId,
      eventId: race.eventId,
      ticketTypeId: race.free,
      number: 77,
      assignedAt: now(),
    });
    const swahili = await getPage(h, `/checkout/${id}?lang=sw`);
    assert.match(swahili.body, /Namba ya kifuani \(bib\):<\/span><strong>77<\/strong>/);
    assert.match(swahili.body, /Fungua tiketi<\/a>/);
  });
});
