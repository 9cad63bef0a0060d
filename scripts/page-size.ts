// npm run size: the bytes a phone downloads for each page of the hosted checkout, against the
// 60 KB first-load budget (HTML + CSS + JS, gzip, cold cache, response headers included).
// Starts the service in-process on an in-memory database, makes a deliberately heavy event
// (six ticket types, three questions, a long waiver, ten participants), and walks every page.
// Exits 1 when any page is over budget.
import type { LightMyRequestResponse } from 'fastify';
import { STATUS_CODES } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { insertEvent } from '../src/events/events.ts';
import { CHECKOUT_SCRIPT, CHECKOUT_STYLES, PAGES_SCRIPT } from '../src/site/assets.ts';
import { createRedirectSession, makeScriptPartner, startScriptService } from './script-service.ts';

const BUDGET_BYTES = 60 * 1024;
const DAY = 24 * 3600 * 1000;
const GZIP = { 'accept-encoding': 'gzip' };

/** What goes over the wire for a response: status line, headers, blank line, body. */
function transferred(res: LightMyRequestResponse): number {
  let bytes = `HTTP/1.1 ${res.statusCode} ${STATUS_CODES[res.statusCode] ?? ''}\r\n`.length + 2;
  for (const [name, value] of Object.entries(res.headers)) {
    for (const v of Array.isArray(value) ? value : [value]) bytes += `${name}: ${v}\r\n`.length;
  }
  return bytes + res.rawPayload.length;
}

const { service, clock } = await startScriptService();
let failed = false;
try {
  const db = service.ctx.database.db;
  const { organizationId, token } = await makeScriptPartner(service, {
    organization: 'Kampala Road Runners',
    client: 'Size check',
  });
  const now = clock.now().getTime();
  const event = await insertEvent(db, organizationId, {
    name: 'Kampala City Marathon and Half Marathon 2026',
    description: 'A morning of road running through the city.',
    venue: 'Kololo Independence Grounds, Kampala',
    status: 'open',
    visibility: 'public',
    starts_at: new Date(now + 30 * DAY).toISOString(),
    ends_at: new Date(now + 30 * DAY + 6 * 3600_000).toISOString(),
    timezone: 'Africa/Kampala',
    currency: 'UGX',
    reg_opens_at: new Date(now - DAY).toISOString(),
    reg_closes_at: new Date(now + 29 * DAY).toISOString(),
    waiver_required: true,
    waiver_version: '2026-03-01',
    waiver_text: 'I take part at my own risk. '.repeat(60),
    additional_questions: [
      {
        key: 'tshirt',
        label: 'T-shirt size',
        type: 'select',
        required: true,
        options: ['XS', 'S', 'M', 'L', 'XL', 'XXL'],
        help: 'Unisex sizes',
      },
      { key: 'club', label: 'Running club', type: 'text', required: false, options: [], help: '' },
      {
        key: 'emergency',
        label: 'Emergency contact phone',
        type: 'text',
        required: true,
        options: [],
        help: 'Someone not running',
      },
    ],
    ticket_types: [
      { name: 'Marathon (42 km)', price_minor: 80000, capacity: 500, distance_km: 42.195, min_age: 18 },
      { name: 'Half marathon (21 km)', price_minor: 60000, capacity: 800, distance_km: 21.1, min_age: 16 },
      { name: '10 km', price_minor: 40000, capacity: 1000, distance_km: 10 },
      { name: '5 km', price_minor: 25000, capacity: 8, distance_km: 5 },
      { name: 'Kids 2 km', price_minor: 10000, capacity: 300, distance_km: 2 },
      { name: 'Fun walk', price_minor: 0, capacity: 300, distance_km: 3 },
    ],
  });
  const detail = (
    await service.api.inject({ url: `/v1/events/${event.id}`, headers: { authorization: `Bearer ${token}` } })
  ).json().data;
  const [marathon, , , , , walk] = detail.ticket_types.map(
    (t: { ticket_type_id: string }) => t.ticket_type_id,
  ) as string[];

  const newSession = async () =>
    (
      await createRedirectSession(service, {
        token,
        eventId: event.id,
        prefill: { buyer_name: 'Amina Nakato' },
      })
    ).id;

  /** Ten marathon runners (the most one order takes), valid in every field. */
  const form = (ticket: string, count: number, extra: Record<string, string>) => {
    const fields: Record<string, string> = { [`qty.${ticket}`]: String(count) };
    for (let i = 0; i < count; i++) {
      Object.assign(fields, {
        [`items[${i}].ticket_type_id`]: ticket,
        [`items[${i}].participant_name`]: `Runner Number ${i + 1}`,
        [`items[${i}].answers.tshirt`]: 'M',
        [`items[${i}].answers.club`]: 'Kampala Hash Harriers',
        [`items[${i}].answers.emergency`]: '0772000000',
        [`items[${i}].date_of_birth`]: '1990-01-01',
      });
    }
    return new URLSearchParams({
      ...fields,
      'buyer.name': 'Amina Nakato',
      'buyer.email': 'amina@example.org',
      'buyer.phone': '0772123456',
      waiver_accepted: 'yes',
      donation_minor: '5000',
      payment_method: 'momo',
      payment_phone: '0770000009',
      ...extra,
    }).toString();
  };
  // Each checkout from a buyer of its own: one address may take only so many places per event.
  const buyers = new Map<string, string>();
  const post = (id: string, path: string, body: string) => {
    if (!buyers.has(id)) buyers.set(id, `192.0.2.${buyers.size + 1}`);
    return service.site.inject({
      method: 'POST',
      url: `/checkout/${id}${path}`,
      headers: { ...GZIP, 'content-type': 'application/x-www-form-urlencoded' },
      payload: body,
      remoteAddress: buyers.get(id)!,
    });
  };
  const get = (url: string) => service.site.inject({ method: 'GET', url, headers: GZIP });

  const pages: [string, LightMyRequestResponse][] = [];
  const a = await newSession();
  pages.push(['1 tickets (with script: every step)', await get(`/checkout/${a}`)]);
  pages.push([
    '2 details, 10 participants (no script)',
    await post(a, '/order', form(marathon!, 10, { action: 'details', from: 'tickets' })),
  ]);
  pages.push([
    '2b every error (no script)',
    await post(a, '/order', form(marathon!, 10, { action: 'pay', 'buyer.email': 'x', waiver_accepted: '' })),
  ]);
  pages.push([
    '3 payment (no script)',
    await post(a, '/order', form(marathon!, 10, { action: 'payment', from: 'details' })),
  ]);
  const paid = await post(a, '/order', form(marathon!, 10, { action: 'pay' }));
  if (paid.statusCode !== 303) throw new Error(`pay answered ${paid.statusCode}`);
  pages.push(['4 wait screen', await get(`/checkout/${a}/pay`)]);

  const b = await newSession();
  await post(b, '/order', form(marathon!, 1, { action: 'pay', payment_phone: '0770000003' }));
  for (let i = 0; i < 100; i++) {
    await service.jobs.runDue();
    const s = (await get(`/checkout/${b}/status.json`)).json();
    if (s.attempt_status === 'failed') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  pages.push(['5 declined, retry form', await get(`/checkout/${b}/pay`)]);

  const c = await newSession();
  const free = await post(c, '/order', form(walk!, 10, { action: 'pay', donation_minor: '' }));
  if (free.statusCode !== 303) throw new Error(`a free order answered ${free.statusCode}`);
  pages.push(['6 confirmation, 10 registrations', await get(`/checkout/${c}/pay`)]);

  const d = await newSession();
  clock.advance(DAY + 1000);
  pages.push(['7 expired', await get(`/checkout/${d}`)]);
  clock.advance(-(DAY + 1000));
  pages.push(['8 not found', await get('/checkout/cs_0000000000000000000000')]);

  const css = await get(CHECKOUT_STYLES.path);
  const cssBytes = transferred(css);
  // The form's script, or the one of the pages after it: each page counts the one it loads.
  const scripts = new Map<string, number>();
  for (const script of [CHECKOUT_SCRIPT, PAGES_SCRIPT])
    scripts.set(script.path, transferred(await get(script.path)));
  const scriptOf = (res: LightMyRequestResponse) => {
    const html = (
      res.headers['content-encoding'] === 'gzip' ? gunzipSync(res.rawPayload) : res.rawPayload
    ).toString();
    return [...scripts.keys()].find((path) => html.includes(`<script src="${path}"`)) ?? CHECKOUT_SCRIPT.path;
  };
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`.padStart(9);
  console.log(
    `Hosted checkout first load (gzip, cold cache, headers included); budget ${BUDGET_BYTES / 1024} KB per page`,
  );
  console.log(
    `assets: CSS ${kb(cssBytes)} (${CHECKOUT_STYLES.body.length} B raw), JS ${kb(scripts.get(CHECKOUT_SCRIPT.path)!)} (form, ${CHECKOUT_SCRIPT.body.length} B raw) and ${kb(scripts.get(PAGES_SCRIPT.path)!)} (pages after it, ${PAGES_SCRIPT.body.length} B raw), cached for a year\n`,
  );
  console.log(
    `${'page'.padEnd(42)} ${'status'.padStart(6)} ${'HTML'.padStart(9)} ${'+CSS+JS'.padStart(9)}  verdict`,
  );
  for (const [name, res] of pages) {
    if (res.headers['content-encoding'] !== 'gzip' && res.rawPayload.length > 1024) {
      throw new Error(`${name} was not compressed`);
    }
    const htmlBytes = transferred(res);
    const total = htmlBytes + cssBytes + scripts.get(scriptOf(res))!;
    const ok = total <= BUDGET_BYTES;
    if (!ok) failed = true;
    console.log(
      `${name.padEnd(42)} ${String(res.statusCode).padStart(6)} ${kb(htmlBytes)} ${kb(total)}  ${ok ? 'ok' : 'OVER BUDGET'}`,
    );
  }
} finally {
  await service.close();
}
process.exit(failed ? 1 : 0);
