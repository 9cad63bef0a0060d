// What one running simulator remembers: issued tokens, transactions, what tests can inspect, and
// the timers that die with the server. The parts that play a network (methods/<key>/) read and
// write it; each also keeps what is its own.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ProviderLog } from '../provider-http.ts';
import type { Scenario } from './sim-scenarios.ts';
import type { SimRefund } from './sim-refunds.ts';
import { header } from './sim-http.ts';

/** The network a transaction, token or refund is of: its method's key. */
export type SimNetwork = string;

export interface Submission {
  network: SimNetwork;
  reference: string;
  msisdn: string;
  /** as sent: a decimal string or a number, as the network's contract has it */
  amount: string | number;
  currency: string;
  callbackUrl: string | null;
  description: string;
  scenario: string;
  result: 'accepted' | 'duplicate' | 'outage' | 'response_lost';
  at: Date;
}

export interface CallbackDelivery {
  network: SimNetwork;
  reference: string;
  url: string;
  /** HTTP status, or null when the delivery failed outright */
  status: number | null;
  error?: string;
}

export interface Transaction {
  network: SimNetwork;
  reference: string;
  scenario: Scenario;
  msisdn: string;
  amount: string | number;
  currency: string;
  payerMessage: string;
  payeeNote: string;
  callbackUrl: string | null;
  state: 'pending' | 'successful' | 'failed';
  providerId: string;
}

export interface SimulatorState {
  readonly log: ProviderLog;
  readonly timeScale: number;
  readonly tokenTtlSeconds: number;
  /** where a network sends the callbacks its merchant registered (not named per request) */
  readonly registeredCallbacks: ReadonlyMap<SimNetwork, string>;
  /** keyed `network:reference` */
  readonly transactions: Map<string, Transaction>;
  /** refunds, keyed `network:refund reference` */
  readonly refunds: Map<string, SimRefund>;
  readonly tokens: Map<string, { network: SimNetwork; expiresAt: number }>;
  readonly submissions: Submission[];
  readonly deliveries: CallbackDelivery[];
  readonly timers: Set<NodeJS.Timeout>;
  /** responses deliberately never answered (scenario 11), destroyed at close */
  readonly held: Set<ServerResponse>;
  readonly callbackAborter: AbortController;
  /** tokens issued, by network */
  readonly tokenCounts: Map<SimNetwork, number>;
  readonly queries: Map<string, number>;
  requests: number;
  closed: boolean;
}

export function createSimulatorState(options: {
  log: ProviderLog;
  timeScale: number;
  tokenTtlSeconds: number;
  registeredCallbacks: ReadonlyMap<SimNetwork, string>;
}): SimulatorState {
  return {
    ...options,
    transactions: new Map(),
    refunds: new Map(),
    tokens: new Map(),
    submissions: [],
    deliveries: [],
    timers: new Set(),
    held: new Set(),
    callbackAborter: new AbortController(),
    tokenCounts: new Map(),
    queries: new Map(),
    requests: 0,
    closed: false,
  };
}

export const scaled = (state: SimulatorState, ms: number): number =>
  Math.max(0, Math.round(ms * state.timeScale));

/** Runs `fn` after `ms` unless the simulator has closed by then. */
export function later(state: SimulatorState, ms: number, fn: () => void): void {
  const timer = setTimeout(() => {
    state.timers.delete(timer);
    if (!state.closed) fn();
  }, ms);
  state.timers.add(timer);
}

export function countQuery(state: SimulatorState, reference: string): void {
  state.queries.set(reference, (state.queries.get(reference) ?? 0) + 1);
}

export function issueToken(state: SimulatorState, network: SimNetwork): string {
  state.tokenCounts.set(network, (state.tokenCounts.get(network) ?? 0) + 1);
  const now = Date.now();
  for (const [old, entry] of state.tokens) if (entry.expiresAt <= now) state.tokens.delete(old); // a long run stays small
  const token = `sim_${network}_${randomBytes(24).toString('base64url')}`;
  state.tokens.set(token, { network, expiresAt: now + state.tokenTtlSeconds * 1000 });
  return token;
}

export function bearerValid(state: SimulatorState, req: IncomingMessage, network: SimNetwork): boolean {
  const match = /^Bearer\s+(\S+)$/i.exec(header(req, 'authorization') ?? '');
  const entry = match ? state.tokens.get(match[1]!) : undefined;
  return !!entry && entry.network === network && entry.expiresAt > Date.now();
}
