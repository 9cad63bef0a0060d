// npm run budget: the hosted checkout's first load as a slow phone gets it (the
// profile: slow 3G at 400 kbps each way with a 400 ms round trip, the CPU slowed 4x, 360x740, cold
// cache), in Debian's Chromium driven over the DevTools protocol. Budgets: at most 15 KB on the
// wire (every response of the load as served, compressed, headers included) and usable within
// 1.5 s of navigation start ("usable": docs/decisions/checkout-usable-measured-in-page.md). Each
// of N runs (`--runs N`, default 5) loads the page with the script and without it; the medians
// decide, for both. Exits 1 when a median is over a budget, 2 when the load could not be measured.
import { parseArgs } from 'node:util';
import { chromium, type Browser, type CDPSession } from 'playwright-core';
import { insertEvent } from '../src/events/events.ts';
import type { Clock } from '../src/platform/clock.ts';
import type { Service } from '../src/service.ts';
import { createRedirectSession, makeScriptPartner, startScriptService } from './script-service.ts';

export const BUDGET_BYTES = 15 * 1024;
export const BUDGET_USABLE_MS = 1500;
/** 400 kbps = 50,000 bytes a second each way; latency is the added round trip (ms). */
const SLOW_3G = { offline: false, latency: 400, downloadThroughput: 50_000, uploadThroughput: 50_000 };
const CPU_SLOWDOWN = 4;
const VIEWPORT = { width: 360, height: 740 };
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const LOAD_TIMEOUT_MS = 30_000;
const WORLD = 'checkout-budget';
const DAY = 24 * 3600 * 1000;

/** Debian's Chromium (never a downloaded browser), as the browser tests launch it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/**
 * A typical event (one paid 10 km ticket type, one required select question, a waiver) and a
 * redirect session for it, made through the partner API. Returns the session's page URL.
 */
export async function makeTypicalCheckout(service: Service, clock: Clock): Promise<string> {
  const { organizationId, token } = await makeScriptPartner(service, {
    organization: 'Kampala Road Runners',
    client: 'Budget check',
  });
  const now = clock.now().getTime();
  const event = await insertEvent(service.ctx.database.db, organizationId, {
    name: 'Kampala City 10K 2026',
    description: 'A morning run through the city.',
    venue: 'Kololo Independence Grounds, Kampala',
    status: 'open',
    visibility: 'public',
    starts_at: new Date(now + 30 * DAY).toISOString(),
    ends_at: new Date(now + 30 * DAY + 4 * 3600_000).toISOString(),
    timezone: 'Africa/Kampala',
    currency: 'UGX',
    reg_opens_at: new Date(now - DAY).toISOString(),
    reg_closes_at: new Date(now + 29 * DAY).toISOString(),
    waiver_required: true,
    waiver_version: '2026-03-01',
    waiver_text: 'I take part at my own risk and am fit to run 10 km.',
    additional_questions: [
      {
        key: 'tshirt',
        label: 'T-shirt size',
        type: 'select',
        required: true,
        options: ['XS', 'S', 'M', 'L', 'XL', 'XXL'],
        help: 'Unisex sizes',
      },
    ],
    ticket_types: [{ name: '10 km', price_minor: 40000, capacity: 1000, distance_km: 10 }],
  });
  return (await createRedirectSession(service, { token, eventId: event.id })).url;
}

/**
 * Runs in an isolated world of each new document (so it runs with the page's JavaScript off too,
 * and the page's own script cannot see it): resolves with the time since navigation start of the
 * first frame in which the first step is shown, its main button is visible and, when the page
 * runs its script, the script has marked the page ready.
 */
function usableProbe(javaScript: boolean): string {
  return `(() => {
  const needsReady = ${javaScript};
  window.__usable = new Promise((resolve) => {
    const check = () => {
      // the step the page opens on (details when the tickets are known)
      const step = document.querySelector('form[data-checkout] [data-step]:not([hidden])');
      const button = step && step.querySelector('[data-primary]');
      const box = button && button.getBoundingClientRect();
      const shown = !!button && !step.hidden && box.width > 0 && box.height > 0 &&
        button.checkVisibility({ visibilityProperty: true });
      const ready = !needsReady || document.documentElement.dataset.ready === '1';
      if (shown && ready) resolve(performance.now());
      else requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  });
})();`;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface LoadOptions {
  url: string;
  /** false: a context with JavaScript off (usable = the first step's main button visible) */
  javaScript: boolean;
  /** slow 3G and the CPU slowed 4x; false loads at the machine's own speed */
  throttle: boolean;
}

export interface LoadMeasure {
  /** encodedDataLength of every response of the load: as served, compressed, headers included */
  bytes: number;
  /** ms from navigation start to the first usable frame */
  usableMs: number;
  /** the page script's mark (html[data-ready]) was set */
  ready: boolean;
  resources: { url: string; status: number; bytes: number }[];
}

/** `promise`, or an error after LOAD_TIMEOUT_MS; the timer does not outlive it. */
async function within<T>(promise: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), LOAD_TIMEOUT_MS);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits until every counted request has finished or failed. */
async function settled(inflight: Set<string>): Promise<void> {
  const deadline = Date.now() + LOAD_TIMEOUT_MS;
  while (inflight.size > 0) {
    if (Date.now() > deadline) throw new Error(`requests still in flight: ${inflight.size}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One cold load of `url` in a new context (empty cache), measured over the DevTools protocol. */
export async function measureCheckoutLoad(browser: Browser, options: LoadOptions): Promise<LoadMeasure> {
  const context = await browser.newContext({ viewport: VIEWPORT, javaScriptEnabled: options.javaScript });
  try {
    const page = await context.newPage();
    const cdp: CDPSession = await context.newCDPSession(page);
    const requests = new Map<string, { url: string; status: number }>();
    const resources: LoadMeasure['resources'] = [];
    const inflight = new Set<string>();
    const offLoopback: string[] = [];
    const failures: string[] = [];
    let loaded = false;
    let world: number | null = null;
    cdp.on('Network.requestWillBeSent', (e) => {
      const url = new URL(e.request.url);
      if (/^https?:$/.test(url.protocol) && !LOOPBACK.has(url.hostname)) offLoopback.push(e.request.url);
      // The load is what is asked for before its load event; the browser's own /favicon.ico
      // request comes after it.
      if (loaded) return;
      requests.set(e.requestId, { url: e.request.url, status: 0 });
      inflight.add(e.requestId);
    });
    cdp.on('Page.loadEventFired', () => (loaded = true));
    cdp.on('Network.responseReceived', (e) => {
      const request = requests.get(e.requestId);
      if (request) request.status = e.response.status;
    });
    cdp.on('Network.loadingFinished', (e) => {
      const request = requests.get(e.requestId);
      if (!request) return;
      resources.push({ ...request, bytes: e.encodedDataLength });
      inflight.delete(e.requestId);
    });
    cdp.on('Network.loadingFailed', (e) => {
      const request = requests.get(e.requestId);
      if (!request) return;
      failures.push(`${request.url}: ${e.errorText}`);
      inflight.delete(e.requestId);
    });
    cdp.on('Runtime.executionContextCreated', (e) => {
      if (e.context.name === WORLD) world = e.context.id;
    });
    await cdp.send('Network.enable');
    await cdp.send('Runtime.enable');
    await cdp.send('Page.enable');
    if (options.throttle) {
      await cdp.send('Network.emulateNetworkConditions', SLOW_3G);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
    }
    await cdp.send('Page.addScriptToEvaluateOnNewDocument', {
      source: usableProbe(options.javaScript),
      worldName: WORLD,
    });

    const response = await page.goto(options.url, { waitUntil: 'load', timeout: LOAD_TIMEOUT_MS });
    if (response?.status() !== 200) throw new Error(`${options.url} answered ${response?.status()}`);
    if (world === null) throw new Error('the usable probe did not start');
    const usable = await within(
      cdp.send('Runtime.evaluate', {
        expression: 'window.__usable',
        contextId: world,
        awaitPromise: true,
        returnByValue: true,
      }),
      `the first step was not usable within ${LOAD_TIMEOUT_MS / 1000} s (shown, its main button visible` +
        `${options.javaScript ? ', html[data-ready] set by the page script' : ''})`,
    );
    if (usable.exceptionDetails) throw new Error(`usable probe: ${usable.exceptionDetails.text}`);
    await settled(inflight);
    if (offLoopback.length > 0) throw new Error(`requests off loopback: ${offLoopback.join(', ')}`);
    if (failures.length > 0) throw new Error(`failed requests: ${failures.join(', ')}`);
    const refused = resources.filter((r) => r.status >= 400).map((r) => `${r.url} (${r.status})`);
    if (refused.length > 0) throw new Error(`refused: ${refused.join(', ')}`);
    const mark = await cdp.send('Runtime.evaluate', {
      expression: "document.documentElement.dataset.ready === '1'",
      contextId: world,
      returnByValue: true,
    });
    return {
      bytes: resources.reduce((sum, r) => sum + r.bytes, 0),
      usableMs: usable.result.value as number,
      ready: mark.result.value === true,
      resources,
    };
  } finally {
    await context.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The command

interface Spread {
  median: number;
  min: number;
  max: number;
}

function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)! };
}

const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const seconds = (ms: number) => (ms / 1000).toFixed(2);

async function main(runs: number): Promise<number> {
  const { service, clock } = await startScriptService({ listen: true });
  let browser: Browser | null = null;
  try {
    const url = await makeTypicalCheckout(service, clock);
    browser = await launchChromium();
    const modes = [
      { name: 'on', javaScript: true },
      { name: 'off', javaScript: false },
    ];
    // One load of each, unthrottled and not counted: the in-process service's first renders
    // (compilation, caches) are not what a buyer's phone waits for.
    for (const mode of modes) {
      await measureCheckoutLoad(browser, { url, javaScript: mode.javaScript, throttle: false });
    }

    console.log(
      `Hosted checkout first load: slow 3G (400 kbps down and up, 400 ms RTT), CPU ${CPU_SLOWDOWN}x slower, ` +
        `${VIEWPORT.width}x${VIEWPORT.height}, cold cache`,
    );
    console.log(
      `budgets: ${kb(BUDGET_BYTES)} KB on the wire, usable in ${seconds(BUDGET_USABLE_MS)} s; ${runs} runs, medians decide\n`,
    );
    console.log(
      `${'run'.padStart(3)}  ${'script'.padEnd(6)}  ${'KB'.padStart(6)}  ${'usable s'.padStart(8)}`,
    );
    const results = new Map<string, LoadMeasure[]>(modes.map((m) => [m.name, []]));
    for (let run = 1; run <= runs; run++) {
      // Interleaved, so that drift on a shared machine hits both alike.
      for (const mode of modes) {
        const m = await measureCheckoutLoad(browser, { url, javaScript: mode.javaScript, throttle: true });
        results.get(mode.name)!.push(m);
        console.log(
          `${String(run).padStart(3)}  ${mode.name.padEnd(6)}  ${kb(m.bytes).padStart(6)}  ${seconds(m.usableMs).padStart(8)}`,
        );
      }
    }

    let over = false;
    console.log(
      `\n${'script'.padEnd(6)}  ${'KB median (min–max)'.padEnd(22)}  ${'usable s median (min–max)'.padEnd(26)}  verdict`,
    );
    for (const mode of modes) {
      const measures = results.get(mode.name)!;
      const bytes = spread(measures.map((m) => m.bytes));
      const usable = spread(measures.map((m) => m.usableMs));
      const problems = [
        ...(bytes.median > BUDGET_BYTES ? ['OVER the byte budget'] : []),
        ...(usable.median > BUDGET_USABLE_MS ? ['OVER the time budget'] : []),
      ];
      if (problems.length > 0) over = true;
      console.log(
        `${mode.name.padEnd(6)}  ${`${kb(bytes.median)} (${kb(bytes.min)}–${kb(bytes.max)})`.padEnd(22)}  ` +
          `${`${seconds(usable.median)} (${seconds(usable.min)}–${seconds(usable.max)})`.padEnd(26)}  ` +
          (problems.join(', ') || 'ok'),
      );
    }
    const first = results.get('on')![0]!;
    console.log(`\nresponses of a load with the script (${first.resources.length}):`);
    for (const r of first.resources) {
      console.log(
        `  ${String(r.status).padStart(3)}  ${String(r.bytes).padStart(6)} B  ${new URL(r.url).pathname}`,
      );
    }
    return over ? 1 : 0;
  } finally {
    await browser?.close();
    await service.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) {
    console.error(`--runs takes a whole number of 1 or more, not ${values.runs}`);
    process.exit(2);
  }
  // Not awaited at the top: a module with top-level await cannot be require()d, and the test
  // workers load each test file, and the modules it imports, with require.
  main(runs).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`could not measure: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(2);
    },
  );
}
