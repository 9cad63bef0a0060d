// Helpers for the SDK tests: the real service listening on loopback ports (the SDK speaks HTTP
// through fetch), and a fetch wrapper that records every request and can fail chosen attempts.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { freePort } from '../helpers/process.ts';

/** A harness whose API listens on a free loopback port; `api` is its origin. */
export async function startListeningService(env: Record<string, string> = {}) {
  const [api, site, app] = [await freePort(), await freePort(), await freePort()];
  const h: Harness = await startHarness({
    env: {
      API_URL: `http://127.0.0.1:${api}`,
      SITE_URL: `http://127.0.0.1:${site}`,
      APP_URL: `http://127.0.0.1:${app}`,
      // The SDK tests ask for many tokens from one client and address.
      RATE_LIMIT_TOKEN_BURST: '1000',
      ...env,
    },
  });
  await h.service.listen();
  return { h, api: `http://127.0.0.1:${api}` };
}

export interface Sent {
  method: string;
  path: string;
  headers: Headers;
  body: string | undefined;
  /** the status answered to the SDK, or 'network' when it got a network error */
  outcome: number | 'network';
}

/**
 * How the wrapper treats one request: `forward` (default), a fake `answer` without reaching the
 * service, `lose` (forward it, then throw as if the connection dropped before the answer), or
 * `refuse` (throw without sending: the connection never opened).
 */
export type Plan =
  | { kind: 'forward' }
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body?: unknown }
  | { kind: 'lose' }
  | { kind: 'refuse' };

/** A fetch that records every request and lets `plan(request, index)` fail some of them. */
export function recordingFetch(
  plan: (sent: Omit<Sent, 'outcome'>, index: number) => Plan = () => ({ kind: 'forward' }),
) {
  const sent: Sent[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const body = request.body ? await request.clone().text() : undefined;
    const url = new URL(request.url);
    const entry = { method: request.method, path: url.pathname + url.search, headers: request.headers, body };
    const step = plan(entry, sent.length);
    const record = (outcome: Sent['outcome']) => sent.push({ ...entry, outcome });
    if (step.kind === 'refuse') {
      record('network');
      throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
    }
    if (step.kind === 'answer') {
      record(step.status);
      return new Response(step.body === undefined ? null : JSON.stringify(step.body), {
        status: step.status,
        headers: { 'content-type': 'application/json', ...step.headers },
      });
    }
    const response = await fetch(request);
    if (step.kind === 'lose') {
      await response.arrayBuffer();
      record('network');
      throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
    }
    record(response.status);
    return response;
  };
  return {
    fetch: wrapped,
    sent,
    /** requests to a path (without query), in order */
    to: (path: string) => sent.filter((s) => s.path.split('?')[0] === path),
  };
}

/** How long one npm command of the packaging tests may take (it may fetch from the registry). */
export const NPM_TIMEOUT_MS = 120_000;

/** `npm install <spec>` in `project` as a partner runs it, install scripts allowed as npm allows them. */
export async function npmInstall(project: string, spec: string, flags: string[] = []): Promise<void> {
  await promisify(execFile)(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts=false', ...flags, spec],
    { cwd: project, timeout: NPM_TIMEOUT_MS },
  );
}
