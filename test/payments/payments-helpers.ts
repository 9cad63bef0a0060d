// Helpers for the provider tests: a callback receiver on a free loopback port, a status poller,
// a wait for a service's background payment work, and request builders.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { normalizePhone } from '../../src/orders/contact.ts';
import type { PaymentProvider, PaymentRequest, StatusResult } from '../../src/payments/provider.ts';
import { testPhoneNumber } from '../../src/payments/simulator/scenarios.ts';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits for a service's background payment work (submissions, callback queries, refund results)
 * until `done` holds, or fails after 10 s naming `what`.
 */
export async function untilSettled(
  gateway: { inflight: Set<Promise<unknown>> },
  what: string,
  done: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await Promise.allSettled([...gateway.inflight]);
    if (await done()) return;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await sleep(20);
  }
}

export interface ReceivedCallback {
  method: string;
  path: string;
  body: unknown;
}

export interface CallbackReceiver {
  url: string;
  received: ReceivedCallback[];
  /** callbacks whose path names this reference */
  about(reference: string): ReceivedCallback[];
  /** waits until `count` callbacks name the reference (or the deadline passes) and returns them */
  waitFor(reference: string, count: number, timeoutMs?: number): Promise<ReceivedCallback[]>;
  close(): Promise<void>;
}

/** A tiny node:http server that records every request and answers 200. */
export async function startCallbackReceiver(): Promise<CallbackReceiver> {
  const received: ReceivedCallback[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep the text
      }
      received.push({ method: req.method ?? '', path: req.url ?? '', body });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const about = (reference: string) => received.filter((c) => c.path.includes(reference));
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    about,
    async waitFor(reference, count, timeoutMs = 3_000) {
      const deadline = Date.now() + timeoutMs;
      while (about(reference).length < count && Date.now() < deadline) await sleep(10);
      return about(reference);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Asks getStatus every `intervalMs` until the answer is final (successful or failed) or time is up. */
export async function pollUntilFinal(
  provider: PaymentProvider,
  reference: string,
  { timeoutMs = 15_000, intervalMs = 20 } = {},
): Promise<{ status: StatusResult; polls: number }> {
  const deadline = Date.now() + timeoutMs;
  let polls = 0;
  for (;;) {
    const status = await provider.getStatus(reference);
    polls++;
    if (status.status === 'successful' || status.status === 'failed' || Date.now() > deadline) {
      return { status, polls };
    }
    await sleep(intervalMs);
  }
}

/** Asks getStatus repeatedly for `forMs` and returns every distinct status seen. */
export async function statusesOver(
  provider: PaymentProvider,
  reference: string,
  forMs: number,
): Promise<string[]> {
  const seen = new Set<string>();
  const deadline = Date.now() + forMs;
  while (Date.now() < deadline) {
    seen.add((await provider.getStatus(reference)).status);
    await sleep(25);
  }
  return [...seen];
}

/** 256… of a simulator test number: msisdnFor('momo', '01') = '256770000001'. */
export function msisdnFor(method: 'momo' | 'airtel', code: string): string {
  return normalizePhone(testPhoneNumber(method, code))!;
}

export function paymentRequest(overrides: Partial<PaymentRequest> = {}): PaymentRequest {
  const reference = overrides.reference ?? randomUUID();
  return {
    reference,
    amount: 15_000,
    currency: 'UGX',
    msisdn: '256772123456',
    callbackUrl: `http://127.0.0.1:9/v1/payment-callbacks/momo/${reference}`,
    description: 'Kampala 10K: 1 ticket',
    ...overrides,
  };
}
