// A simulated payment's life, the same on every network that keeps its payments in the shared
// state: created by a submit (or refused as a duplicate or an outage, as its scenario says), settled
// when its scenario's delay runs out, and announced by zero, one or two callbacks. What differs per network comes in as
// NetworkRules.
import type { ServerResponse } from 'node:http';
import { sendToReceiver, type HttpError } from './sim-http.ts';
import {
  later,
  scaled,
  type CallbackDelivery,
  type SimulatorState,
  type Submission,
  type Transaction,
} from './sim-state.ts';

export interface NetworkRules {
  duplicateError(): HttpError;
  outageError(): HttpError;
  /** the network's own id for a new payment, in its shape */
  newTransactionId(): string;
  /** the callback announcing a final transaction; a null url sends none */
  callbackFor(state: SimulatorState, txn: Transaction): { url: string | null; method: string; body: unknown };
}

/** A lost response is held until the client gives up; after this the socket is destroyed anyway. */
const HOLD_LOST_RESPONSE_MS = 30_000;
/** Scenario 03's second callback follows the first by this much (scaled). */
const DUPLICATE_CALLBACK_AFTER_MS = 1_000;

export function createTransaction(
  state: SimulatorState,
  options: {
    rules: NetworkRules;
    txn: Omit<Transaction, 'state' | 'providerId'>;
    submission: Omit<Submission, 'scenario' | 'result' | 'at'>;
    res: ServerResponse;
    accept: () => void;
  },
): void {
  const { rules, txn, submission, res, accept } = options;
  const key = `${txn.network}:${txn.reference}`;
  const record = (result: Submission['result']) =>
    state.submissions.push({ ...submission, scenario: txn.scenario.code, result, at: new Date() });
  if (state.transactions.has(key)) {
    record('duplicate');
    throw rules.duplicateError();
  }
  if (txn.scenario.submit === 'outage') {
    record('outage');
    throw rules.outageError();
  }
  const providerId = rules.newTransactionId();
  const full: Transaction = { ...txn, state: 'pending', providerId };
  state.transactions.set(key, full);
  if (txn.scenario.settleAfterMs !== null) {
    later(state, scaled(state, txn.scenario.settleAfterMs), () => settleTransaction(state, rules, full));
  }
  if (txn.scenario.submit === 'lose_response') {
    record('response_lost');
    // Accepted, but the answer never comes: hold the socket until the client gives up.
    state.held.add(res);
    res.on('close', () => state.held.delete(res));
    later(state, HOLD_LOST_RESPONSE_MS, () => res.destroy());
    return;
  }
  record('accepted');
  accept();
}

function settleTransaction(state: SimulatorState, rules: NetworkRules, txn: Transaction): void {
  if (txn.state !== 'pending') return; // approved early by a test: the scenario's own end is moot
  txn.state = txn.scenario.declined ? 'failed' : 'successful';
  state.log.info(
    { network: txn.network, reference: txn.reference, state: txn.state },
    'simulated payment final',
  );
  for (let i = 0; i < txn.scenario.callbacks; i++) {
    if (i === 0) void deliverCallback(state, rules, txn);
    else
      later(
        state,
        scaled(state, DUPLICATE_CALLBACK_AFTER_MS) * i,
        () => void deliverCallback(state, rules, txn),
      );
  }
}

async function deliverCallback(state: SimulatorState, rules: NetworkRules, txn: Transaction): Promise<void> {
  const { url, method, body } = rules.callbackFor(state, txn);
  if (!url) return;
  const sent = await sendToReceiver(url, { method, body, cancel: state.callbackAborter.signal });
  const delivery: CallbackDelivery = { network: txn.network, reference: txn.reference, url, ...sent };
  if (sent.error === undefined && sent.status! >= 300) {
    state.log.warn({ ...delivery }, 'callback delivery refused (not retried)');
  }
  if (sent.error !== undefined && !state.closed) {
    state.log.warn({ ...delivery }, 'callback delivery failed (not retried)');
  }
  state.deliveries.push(delivery);
}

/**
 * Test control: the payer approves a pending payment of `network` now, whatever its number chose,
 * with no callback. False when there is no such pending payment.
 */
export function approveTransaction(
  state: SimulatorState,
  rules: NetworkRules,
  network: string,
  reference: string,
): boolean {
  const txn = state.transactions.get(`${network}:${reference}`);
  if (!txn || txn.state !== 'pending') return false;
  txn.scenario = { ...txn.scenario, declined: false, statusShowsFinal: true, callbacks: 0 };
  settleTransaction(state, rules, txn);
  return true;
}
