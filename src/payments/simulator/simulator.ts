// The provider simulator: one small node:http server in which each payment method's part (its
// definition's `simulator`, in its folder) speaks its provider's contract under its own prefix,
// with fixed test credentials, so the real adapters run against it over real HTTP. Test numbers and
// cards choose outcomes (scenarios.ts); every delay is multiplied by a time scale so tests run the
// five-minute scenarios in about a second. This file starts the server and gives tests their view
// of it: what the parts share, and each part by its method's key (sim.part(key)).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PAYMENT_METHOD_REGISTRY, type PaymentMethodDefinition } from '../methods/registry.ts';
import { silentLog, type ProviderLog } from '../provider-http.ts';
import type { StartedSimulatorPart } from './sim-part.ts';
import { HttpError, sendJson } from './sim-http.ts';
import {
  createSimulatorState,
  type CallbackDelivery,
  type SimNetwork,
  type Submission,
} from './sim-state.ts';

export interface SimulatorOptions<M extends readonly PaymentMethodDefinition[]> {
  /** the methods whose parts it plays; default the registry's */
  methods?: M;
  /** 0 (default) = any free port */
  port?: number;
  host?: string;
  /** multiplies every delay; default 1 (0.05 = twenty times faster) */
  timeScale?: number;
  /**
   * where a method's provider sends the callbacks its merchant keeps registered (its part's
   * registeredCallback), by method key; `{reference}` is replaced; none for a method left out
   */
  callbackUrls?: Readonly<Record<string, string | undefined>>;
  /** lifetime of issued access tokens, in seconds (not scaled); default 3600 */
  tokenTtlSeconds?: number;
  log?: ProviderLog;
}

type PartOf<D> = D extends PaymentMethodDefinition<string, infer P> ? P : never;

/** What tests reach of a method's part: its adapter settings with the test credentials, and its accessors. */
type SimulatorPartView<D> = { settings: ReturnType<PartOf<D>['settings']> } & ReturnType<
  PartOf<D>['start']
>['accessors'];

export interface Simulator<M extends readonly PaymentMethodDefinition[] = typeof PAYMENT_METHOD_REGISTRY> {
  /** http://host:port; each method's part lives under its prefix */
  url: string;
  /** a method's part, by its key */
  part<K extends M[number]['key']>(key: K): SimulatorPartView<Extract<M[number], { key: K }>>;
  close(): Promise<void>;
  /** every payment request that passed authentication and validation, in order (shared state) */
  submissions(): Submission[];
  callbacks(): CallbackDelivery[];
  /** tokens issued, by method key (the parts that keep their tokens in the shared state) */
  tokenRequests(): Record<SimNetwork, number>;
  /** every HTTP request received, of any kind */
  requestCount(): number;
  /** forget every issued token (each part's own too), so the next call with one gets 401 */
  revokeTokens(): void;
  /** status queries received for a reference, whatever their answer */
  statusQueries(reference: string): number;
  /**
   * Test control: the payer approves a payment that is still pending, now, whatever its number
   * chose (09 included), with no callback. False when no such pending payment exists.
   */
  approve(reference: string): boolean;
  /** Refunds received (the networks of the shared state), oldest first, with their state now. */
  refunds(): Array<{
    network: SimNetwork;
    reference: string;
    paymentReference: string;
    /** as the network's request gave it: a major-unit string, or the payment's number */
    amount: string | number;
    state: string;
  }>;
}

/** Parses SIMULATOR_TIME_SCALE (main.ts) and checks the timeScale option. */
export function timeScaleFrom(value: string | number | undefined): number {
  if (value === undefined || value === '') return 1;
  const scale = Number(value);
  if (!Number.isFinite(scale) || scale <= 0) {
    throw new RangeError(`SIMULATOR_TIME_SCALE must be a positive number, got "${value}"`);
  }
  return scale;
}

export async function startSimulator<
  const M extends readonly PaymentMethodDefinition[] = typeof PAYMENT_METHOD_REGISTRY,
>(options: SimulatorOptions<M> = {}): Promise<Simulator<M>> {
  const methods: readonly PaymentMethodDefinition[] = options.methods ?? PAYMENT_METHOD_REGISTRY;
  const log = options.log ?? silentLog;
  const timeScale = timeScaleFrom(options.timeScale);
  const host = options.host ?? '127.0.0.1';
  const callbackUrls = new Map<string, string>();
  for (const { key } of methods) {
    const callbackUrl = options.callbackUrls?.[key];
    if (callbackUrl) callbackUrls.set(key, callbackUrl);
  }
  const state = createSimulatorState({
    log,
    timeScale,
    tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
    registeredCallbacks: callbackUrls,
  });
  const parts = methods.map((method) => ({
    key: method.key,
    definition: method.simulator,
    started: method.simulator.start({ state, callbackUrl: callbackUrls.get(method.key) }),
  }));
  const prefixes = new Set(parts.map((p) => p.definition.prefix));
  if (prefixes.size !== parts.length) throw new Error('two payment methods share a simulator prefix');
  let url = '';

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    state.requests++;
    const path = new URL(req.url ?? '/', 'http://simulator').pathname;
    const part = parts.find((p) => path.startsWith(`${p.definition.prefix}/`));
    if (part) return part.started.handle({ req, res, path: path.slice(part.definition.prefix.length) });
    if (req.method === 'GET' && path === '/') {
      return sendJson(res, 200, {
        simulator: `payments (${parts.map((p) => p.definition.contract).join(', ')})`,
        // Each part's address under its prefix's name (/pay: pay), as its provider is known.
        ...Object.fromEntries(
          parts.map((p) => [p.definition.prefix.slice(1), `${url}${p.definition.prefix}`]),
        ),
        time_scale: timeScale,
      });
    }
    const where = parts.map((p) => `${p.definition.contract} under ${p.definition.prefix}`);
    throw new HttpError(404, { message: `Not found: ${where.join(', ')}` });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent || res.destroyed) return;
      if (error instanceof HttpError) {
        if (typeof error.body === 'string') {
          res.writeHead(error.status, { 'Content-Type': 'text/html' });
          res.end(error.body);
        } else {
          sendJson(res, error.status, error.body);
        }
        return;
      }
      log.error({ err: error }, 'simulator request failed');
      sendJson(res, 500, { message: 'simulator error' });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const views = new Map<string, { settings: unknown; started: StartedSimulatorPart<unknown> }>(
    parts.map((p) => [p.key, { settings: p.definition.settings(url), started: p.started }]),
  );

  return {
    url,
    part(key) {
      const view = views.get(key);
      if (!view) throw new TypeError(`the simulator plays no method ${key}`);
      // The one cast: the part under `key` is the one its definition in M typed.
      return { settings: view.settings, ...(view.started.accessors as object) } as SimulatorPartView<
        Extract<M[number], { key: typeof key }>
      >;
    },
    async close() {
      if (state.closed) return;
      state.closed = true;
      for (const timer of state.timers) clearTimeout(timer);
      state.timers.clear();
      state.callbackAborter.abort();
      for (const res of state.held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    submissions: () => state.submissions.map((s) => ({ ...s })),
    callbacks: () => state.deliveries.map((d) => ({ ...d })),
    tokenRequests: () => Object.fromEntries(state.tokenCounts),
    requestCount: () => state.requests,
    revokeTokens: () => {
      state.tokens.clear();
      for (const { started } of parts) started.revokeTokens?.();
    },
    statusQueries: (reference) => state.queries.get(reference) ?? 0,
    refunds: () =>
      [...state.refunds.values()].map(({ network, reference, paymentReference, amount, state: s }) => ({
        network,
        reference,
        paymentReference,
        amount,
        state: s,
      })),
    approve: (reference) => parts.some(({ started }) => started.approve?.(reference) ?? false),
  };
}
