// What a payment method brings to the simulator (its definition's `simulator`, in its folder): the
// provider contract it serves under its path prefix, its adapter settings against a simulator at a
// URL with the test credentials, its lines in the listing, and what tests may reach of it.
// simulator.ts starts one of each method's parts in one server.
import type { SimCall } from './sim-http.ts';
import type { SimulatorState } from './sim-state.ts';

interface SimulatorPartContext {
  /** what the parts share: tokens, transactions, refunds, timers, the time scale */
  state: SimulatorState;
  /** where its provider sends the callbacks its merchant registered (registeredCallback); unset: none */
  callbackUrl: string | undefined;
}

export interface StartedSimulatorPart<A> {
  /** one request under the part's prefix (`call.path` without it) */
  handle(call: SimCall): Promise<void>;
  /** what tests reach as sim.part(key), beside its settings */
  accessors: A;
  /** test control behind sim.approve: a pending payment of this part succeeds now; false when none */
  approve?(reference: string): boolean;
  /** forget the tokens the part keeps itself (sim.revokeTokens) */
  revokeTokens?(): void;
}

export interface SimulatorPart<S = unknown, A = unknown> {
  /** its path prefix, e.g. `/pay`: the simulator hands it every request under it */
  prefix: string;
  /** the contract it speaks, as the simulator's landing and its 404 name it */
  contract: string;
  /** what the listing calls its test numbers (`npm run simulator`) */
  label: string;
  /** its adapter settings against a simulator at `url`, with the test credentials */
  settings(url: string): S;
  /**
   * a callback address its provider keeps registered rather than one named per request: the
   * simulator's variable for it (`npm run simulator`), and the path the service's own takes after
   * its callback route for the method (/v1/payment-callbacks/<key>)
   */
  registeredCallback?: { variable: string; path: string };
  start(context: SimulatorPartContext): StartedSimulatorPart<A>;
  /** its lines in the listing: where it is, its test credentials and where its callbacks go */
  listing(settings: S, callbackUrl: string | undefined): string[];
  /** what the listing says of its refunds, when they differ from a refund of the whole */
  refundNote?: string;
  /** lines the listing ends with (test cards typed on the provider's page) */
  notes?: readonly string[];
}

/** A part with its settings and accessors types inferred. */
export function defineSimulatorPart<S, A>(part: SimulatorPart<S, A>): SimulatorPart<S, A> {
  return part;
}
