// The world of the browser tests: the whole service listening on real ports (API and SITE on
// different origins), the example partner site on its own origin, a second "stranger" origin
// that serves whatever page a test gives it, and Chromium from Debian (test/helpers/chromium.ts)
// driven by playwright-core.
//
//   API      http://127.0.0.1:<port>
//   SITE     http://localhost:<port>     (another site than the partner: the frame is cross-site)
//   partner  http://127.0.0.1:<port>     examples/partner-site, allowlisted by the partner's key
//   stranger http://127.0.0.1:<port>     not allowlisted
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { chromium, type Browser, type BrowserContext, type Frame, type Page } from 'playwright-core';
import { startPartnerSite, type PartnerSite } from '../../examples/partner-site/server.ts';
import type { CheckoutError, CheckoutResult, OpenOptions } from '../../web/checkout-js/checkout.ts';
import {
  makeEvent,
  makePartner,
  startHarness,
  TEST_ADMIN_KEY,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';
import { freePort } from '../helpers/process.ts';

/** Why the browser tests cannot run here, or null. */
export const NO_BROWSER = existsSync(CHROMIUM)
  ? null
  : `Chromium not found at ${CHROMIUM} (apt-get install chromium-headless-shell, or set CHROMIUM_PATH)`;

export type Recorded =
  ['success', CheckoutResult] | ['cancel'] | ['close'] | ['error', CheckoutError] | ['error-callback-ran'];

declare global {
  interface Window {
    __events: Recorded[];
  }
}

export interface StrangerPage {
  html: string;
  headers?: Record<string, string>;
  type?: string;
}

export interface World {
  h: Harness;
  api: string;
  site: string;
  partner: TestPartner;
  eventId: string;
  partnerSite: PartnerSite;
  /** an origin no key allowlists; tests put pages on it */
  stranger: { url: string; pages: Map<string, StrangerPage> };
  browser: Browser;
  newPage(options?: {
    viewport?: { width: number; height: number };
  }): Promise<{ page: Page; context: BrowserContext }>;
  close(): Promise<void>;
}

async function startStranger(): Promise<{ url: string; pages: Map<string, StrangerPage>; server: Server }> {
  const pages = new Map<string, StrangerPage>();
  const port = await freePort();
  const server = createServer((request, response) => {
    const page = pages.get(new URL(request.url ?? '/', 'http://x').pathname);
    if (!page) {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, { 'content-type': page.type ?? 'text/html; charset=utf-8', ...page.headers });
    response.end(page.html);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, pages, server };
}

/** `env` adds to or overrides the service's settings (a test that needs a slower payment clock). */
export async function startWorld(options: { env?: Record<string, string> } = {}): Promise<World> {
  const [apiPort, sitePort, appPort, partnerPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const api = `http://127.0.0.1:${apiPort}`;
  const site = `http://localhost:${sitePort}`;
  const partnerOrigin = `http://127.0.0.1:${partnerPort}`;
  const h = await startHarness({
    env: {
      API_URL: api,
      SITE_URL: site,
      APP_URL: `http://127.0.0.1:${appPort}`,
      // One browser makes many page loads from one address; the per-IP page limit is not under test.
      RATE_LIMIT_SITE_RATE: '1000',
      RATE_LIMIT_SITE_BURST: '1000',
      // A key's burst covers every test's calls; the slow refill lets one test spend a key's
      // allowance and see rate_limited in the browser without racing the clock.
      RATE_LIMIT_PUBLISHABLE_RATE: '0.1',
      RATE_LIMIT_PUBLISHABLE_BURST: '30',
      // The partner site's webhook receiver is on loopback.
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      ...options.env,
    },
  });
  // A step that fails (a port another process took) must not leave the harness or the sites
  // running: the file's after hook has no world to close, and its process would never end.
  const started: (() => Promise<unknown>)[] = [() => h.close()];
  const close = async () => {
    for (const stop of started.reverse()) await stop().catch(() => {});
  };
  try {
    await h.service.listen();
    const partner = await makePartner(h, {
      allowedDomains: [partnerOrigin],
      returnUrlDomains: [partnerOrigin],
    });
    const event = await makeEvent(h, partner);
    const endpoint = await h.service.app.inject({
      method: 'POST',
      url: `/admin/v1/organizations/${partner.organizationId}/webhook-endpoints`,
      headers: { authorization: `Bearer ${TEST_ADMIN_KEY}` },
      payload: { url: `${partnerOrigin}/webhooks` },
    });
    if (endpoint.statusCode !== 201)
      throw new Error(`webhook endpoint: ${endpoint.statusCode} ${endpoint.body}`);
    const partnerSite = await startPartnerSite({
      url: partnerOrigin,
      apiUrl: api,
      siteUrl: site,
      clientId: partner.clientId,
      clientSecret: partner.clientSecret,
      publishableKey: partner.publishableKey,
      eventId: event.id,
      webhookSecret: endpoint.json().data.secret,
    });
    started.push(() => partnerSite.close());
    const stranger = await startStranger();
    started.push(async () => {
      await new Promise((resolve) => stranger.server.close(resolve));
      stranger.server.closeAllConnections();
    });
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        ...CHROMIUM_ARGS,
        // Browsers are dropping third-party cookies: the framed checkout must not need them.
        '--test-third-party-cookie-phaseout',
      ],
    });
    started.push(() => browser.close());
    return {
      h,
      api,
      site,
      partner,
      eventId: event.id,
      partnerSite,
      stranger: { url: stranger.url, pages: stranger.pages },
      browser,
      async newPage(options = {}) {
        const context = await browser.newContext({
          viewport: options.viewport ?? { width: 1280, height: 800 },
        });
        const page = await context.newPage();
        return { page, context };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Opens a checkout with callbacks that record into window.__events. Options are JSON only. */
export async function openCheckout(
  page: Page,
  options: Omit<OpenOptions, 'onSuccess' | 'onCancel' | 'onClose' | 'onError'>,
): Promise<void> {
  await page.evaluate((opts) => {
    window.__events = window.__events ?? [];
    window.ServiceCheckout!.open({
      ...opts,
      onSuccess: (result) => window.__events.push(['success', result]),
      onCancel: () => window.__events.push(['cancel']),
      onClose: () => window.__events.push(['close']),
      onError: (error) => window.__events.push(['error', error]),
    });
  }, options);
}

export async function events(page: Page): Promise<Recorded[]> {
  return page.evaluate(() => window.__events ?? []);
}

/** Waits until at least `count` callbacks have run and returns them all. */
export async function waitForEvents(page: Page, count: number, timeout = 15_000): Promise<Recorded[]> {
  await page.waitForFunction((n) => (window.__events ?? []).length >= n, count, { timeout });
  return events(page);
}

export async function dialogCount(page: Page): Promise<number> {
  return page.locator('[role="dialog"]').count();
}

/** The checkout iframe of the open modal, once it is in the page. */
export async function checkoutFrame(page: Page, site: string): Promise<Frame> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const frame = page.frames().find((f) => f.url().startsWith(`${site}/checkout/`));
    if (frame) return frame;
    if (Date.now() > deadline) throw new Error('no checkout frame');
    await page.waitForTimeout(50);
  }
}

/** Waits until the spinner has gone (service:ready arrived) and the frame shows. */
export async function waitForReady(page: Page, timeout = 15_000): Promise<void> {
  await page.waitForFunction(
    () => {
      const frame = document.querySelector('[role="dialog"] iframe') as HTMLIFrameElement | null;
      return !!frame && frame.style.visibility === 'visible';
    },
    undefined,
    { timeout },
  );
}

/** An embedded session created server-side with a bearer token, for `embedOrigin`. */
export async function createEmbeddedSession(
  world: World,
  embedOrigin: string,
  body: object = {},
): Promise<string> {
  const session = await world.partnerSite.service.createEmbeddedSession({
    eventId: world.eventId,
    embedOrigin,
    ...body,
  });
  return session.id;
}

/**
 * Fills the hosted checkout in `frame` step by step as a buyer would (one 10 km ticket) and
 * presses Pay. Phone 0770000001 is the simulator's "success after ~2 s" number
 * (docs/partners/testing.md).
 */
export async function payInFrame(frame: Frame, options: { phone?: string; participant?: string } = {}) {
  for (let i = 0; i < 6; i++) {
    const step = frame.locator('section.step:not([hidden])');
    const heading = await step.locator('h2').innerText();
    if (/Tickets/.test(heading)) await frame.getByLabel('Quantity of 10 km').selectOption('1');
    if (/Your details/.test(heading)) {
      // Someone other than the buyer runs.
      await step.getByLabel('I am the runner').uncheck();
      await step
        .getByLabel('Full name')
        .first()
        .fill(options.participant ?? 'Ann Runner');
      for (const [label, value] of [
        ['Your name', 'Ann Buyer'],
        ['E-mail', 'ann@example.org'],
        ['Phone number', '0772123456'],
      ] as const) {
        const field = step.getByLabel(label);
        if (!(await field.inputValue())) await field.fill(value);
      }
    }
    if (/Payment/.test(heading)) {
      await step.getByLabel('MTN Mobile Money').check();
      await step.getByLabel('Mobile money number').fill(options.phone ?? '0770000001');
    }
    const pay = step.getByRole('button', { name: /^(Pay |Confirm registration)/ });
    if (await pay.isVisible()) return pay.click();
    await step.getByRole('button', { name: 'Continue' }).click();
  }
  throw new Error('the checkout never reached its Pay button');
}
