// Builds the payment gateway from configuration: the real adapters against the live APIs, or the
// same adapters against the simulator: started in-process (development, demo, tests), or one
// already running at SIMULATOR_URL.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { PAYMENT_METHOD_REGISTRY, type PaymentMethodDefinition } from './methods/registry.ts';
import type { PaymentGateway } from './payment-gateway.ts';
import type { PaymentProvider } from './provider.ts';
import { startSimulator, type Simulator } from './simulator/simulator.ts';

/** The gateway over `methods` (the registry's by default), each with its adapter. */
export async function createPaymentGateway(
  config: Config,
  log: Logger,
  methods: readonly PaymentMethodDefinition[] = PAYMENT_METHOD_REGISTRY,
): Promise<{ gateway: PaymentGateway; close: () => Promise<void> }> {
  const payments = config.payments;
  for (const { key } of methods) {
    // Its settings are read with the configuration: loadConfig's paymentMethods option.
    if (!payments.methods[key]) throw new Error(`payment method ${key}: its settings were not loaded`);
  }
  const adapterLog = log.child({ component: 'payments' });
  const setting = { config, timeoutMs: payments.httpTimeoutMs, options: { log: adapterLog } };
  // Keyed by every method taken: a live method without its settings is left out.
  const gatewayOver = (
    provide: (method: PaymentMethodDefinition) => PaymentProvider | null,
  ): PaymentGateway => {
    const adapters = methods.flatMap((m) => {
      const provider = provide(m);
      return provider ? [{ method: m, provider }] : [];
    });
    return {
      methods: adapters.map((a) => a.method),
      providers: Object.fromEntries(
        adapters.map((a) => [a.method.key, a.provider]),
      ) as PaymentGateway['providers'],
      timeScale: payments.timeScale,
      callbackBase: callbackBaseOf(config),
      returnBase: `${config.siteUrl.origin}/checkout/return`,
      maxAmount: Object.fromEntries(
        adapters.map(({ method }) => [
          method.key,
          Object.fromEntries(method.currencies.map((c) => [c, method.maxAmount(config, c)])),
        ]),
      ),
      inflight: new Set(),
      hinted: new Map(),
    };
  };
  if (payments.provider === 'live') {
    return { gateway: gatewayOver((m) => m.createLiveProvider(setting)), close: async () => {} };
  }
  // SIMULATOR_URL: a simulator running elsewhere (it outlives this process), with the fixed test
  // credentials; it sends registered callbacks where its own variables say (each part's).
  const simulator = payments.simulatorUrl
    ? { url: payments.simulatorUrl, close: async () => {} }
    : await startLocalSimulator(config, adapterLog, methods);
  adapterLog.info(
    { url: simulator.url },
    payments.simulatorUrl ? 'using the payment simulator at SIMULATOR_URL' : 'payment simulator started',
  );
  return {
    gateway: gatewayOver((m) => m.createSimulatedProvider(setting, simulator.url)),
    close: () => simulator.close(),
  };
}

/**
 * The simulator as configured, on this machine (SIMULATOR_PORT, or any free port), playing
 * `methods`; a provider's registered callbacks go to the method's callback route.
 */
export function startLocalSimulator(
  config: Config,
  log: Logger,
  methods: readonly PaymentMethodDefinition[] = PAYMENT_METHOD_REGISTRY,
): Promise<Simulator<readonly PaymentMethodDefinition[]>> {
  const payments = config.payments;
  const callbackUrls = Object.fromEntries(
    methods.flatMap(({ key, simulator }) =>
      simulator.registeredCallback
        ? [[key, `${callbackBaseOf(config)}/${key}${simulator.registeredCallback.path}`]]
        : [],
    ),
  );
  return startSimulator({
    methods,
    port: payments.simulatorPort,
    host: '127.0.0.1',
    timeScale: payments.timeScale,
    callbackUrls,
    log,
  });
}

function callbackBaseOf(config: Config): string {
  return `${config.apiUrl.origin}/v1/payment-callbacks`;
}
