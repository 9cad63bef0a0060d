// Browser tests of the hosted checkout: Chromium from Debian (test/helpers/chromium.ts) driven by
// playwright-core, the service on real loopback ports, a tiny partner site that records where the
// buyer lands, axe-core run inside each page, and a screenshot of each step.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';
import { freePort } from '../helpers/process.ts';
import { waitFor } from '../helpers/wait.ts';

export { CHROMIUM };
const AXE_SOURCE = readFileSync(fileURLToPath(import.meta.resolve('axe-core/axe.min.js')), 'utf8');
export const SCREENSHOTS = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));

/** `extraArgs`: Chromium switches a test needs besides these (a fake camera). */
export async function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/**
 * A harness whose three hosts listen on the ports of their configured URLs (SITE_URL checks hold),
 * with `env` added to its settings.
 */
export async function startListeningHarness(
  env: Record<string, string> = {},
): Promise<{ h: Harness; api: string; site: string }> {
  const [api, site, app] = [await freePort(), await freePort(), await freePort()];
  const urls = {
    API_URL: `http://127.0.0.1:${api}`,
    SITE_URL: `http://127.0.0.1:${site}`,
    APP_URL: `http://127.0.0.1:${app}`,
  };
  const h = await startHarness({ env: { ...env, ...urls } });
  await h.service.listen();
  return { h, api: urls.API_URL, site: urls.SITE_URL };
}

export interface PartnerSite {
  origin: string;
  /** every URL requested, in order */
  visits: string[];
  close(): Promise<void>;
}

/**
 * The partner's web site: records each landing URL and answers a small page. /embed?src=<url>
 * is a page that frames the checkout and records the messages it receives in window.received.
 */
export async function startPartnerSite(): Promise<PartnerSite> {
  const visits: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://partner.test');
    visits.push(req.url ?? '/');
    if (url.pathname === '/embed') {
      const src = url.searchParams.get('src') ?? '';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><title>Partner</title></head><body>
<h1>Partner page</h1>
<iframe title="Checkout" src="${src.replace(/"/g, '&quot;')}" style="width:360px;height:700px" allow="payment"></iframe>
<script>
window.received = [];
window.addEventListener('message', (e) => window.received.push({ origin: e.origin, data: e.data }));
</script></body></html>`);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html lang="en"><head><title>Partner</title></head><body><h1>Partner landing</h1></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    visits,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests read API bodies loosely
type Json = any;

/** Calls the partner API over HTTP with a bearer token, as a partner server would. */
export async function apiCall(
  api: string,
  token: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

/** A redirect session for `eventId` made through the partner API; it returns to `site`'s /thanks or /race. */
export async function newRedirectSession(
  api: string,
  token: string,
  site: PartnerSite,
  eventId: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string; url: string }> {
  const res = await apiCall(api, token, 'POST', '/v1/checkout-sessions', {
    event_id: eventId,
    on_success_url: `${site.origin}/thanks`,
    on_cancel_url: `${site.origin}/race`,
    ...extra,
  });
  assert.equal(res.status, 201, JSON.stringify(res.json));
  return res.json.data;
}

/** What a buyer did, counted: each tap (a select is two: open, pick), each field typed, each screen seen. */
export class TapCounter {
  taps = 0;
  typed = 0;
  readonly screens: string[] = [];
  readonly page: Page;
  constructor(page: Page) {
    this.page = page;
  }

  async tap(target: Locator): Promise<void> {
    await target.click();
    this.taps += 1;
  }

  async type(target: Locator, text: string): Promise<void> {
    await this.tap(target);
    await target.fill(text);
    this.typed += 1;
  }

  async choose(target: Locator, value: string): Promise<void> {
    await target.selectOption(value);
    this.taps += 2;
  }
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core in the page and fails on serious or critical violations (on any, when strict). The library goes in
 * through the DevTools protocol (page.evaluate): an added <script> tag would be refused by the
 * page's own Content-Security-Policy, which these tests keep switched on.
 */
export async function expectAccessible(page: Page, label: string, { strict = false } = {}): Promise<void> {
  type Axe = { run: (o: unknown) => Promise<{ violations: unknown[] }> };
  // A page that reloads itself between the two calls (the wait screen does once a payment settles)
  // loses the injected library: inject again, once, and say where the page went if it still fails.
  let violations: AxeViolation[] | null = null;
  for (let round = 0; round < 2 && !violations; round++) {
    await page.evaluate(AXE_SOURCE);
    violations = (await page.evaluate(async () => {
      const axe = (window as unknown as { axe?: Axe }).axe;
      return axe ? (await axe.run({ resultTypes: ['violations'] })).violations : null;
    })) as AxeViolation[] | null;
  }
  assert.ok(violations, `axe on ${label}: the page navigated away twice (now ${page.url()})`);
  // strict: every violation counts, minor and moderate ones too (axe 0)
  const bad = strict
    ? violations
    : violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(
    bad.map(
      (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    ),
    [],
    `axe on ${label}`,
  );
}

/** `fullPage: false` for a modal: the host page's whole length would not show what is on screen. */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage });
}

/** Waits for `target`; when it does not show, the error says what the page shows instead. */
export async function waitShown(page: Page, target: Locator, what: string, timeout = 30_000): Promise<void> {
  try {
    await target.waitFor({ timeout });
  } catch (error) {
    const text = await page
      .locator('body')
      .innerText({ timeout: 2_000 })
      .catch((e: unknown) => `(unreadable: ${(e as Error).message})`);
    const says = text.replace(/\s+/g, ' ').slice(0, 600);
    throw new Error(`${what} not shown within ${timeout / 1000} s at ${page.url()}; the page says: ${says}`, {
      cause: error,
    });
  }
}

/** Collects script errors and CSP violations reported by the page, to assert none happened. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // Error statuses of pages (the expired page is a 410) are expected; refusals are not.
    if (message.type() === 'error' && /Content Security Policy|Refused to|Uncaught/i.test(message.text())) {
      problems.push(`console: ${message.text()}`);
    }
  });
  return problems;
}

/**
 * Moves the page's clock (installed before the page loaded) half a second at a time until `done`:
 * the page's timers fire once due, while its requests take the time they take.
 */
export async function runPageClockUntil(
  page: Page,
  what: string,
  done: () => Promise<boolean>,
  ms = 30_000,
): Promise<void> {
  await waitFor(
    () => `${what} within ${ms / 1000} s (at ${page.url()})`,
    async () => {
      if (await done()) return true;
      await page.clock.runFor(500);
      return false;
    },
    ms,
    20,
  );
}

/**
 * Clicks a control whose click removes its own frame (the modal's × or Done): input sent to a frame
 * going away can wait until its time-out, so the click is not awaited, and the caller's waits on the
 * page (which time out) decide.
 */
export function clickRemovingFrame(target: Locator): void {
  void target.click().catch(() => {});
}
