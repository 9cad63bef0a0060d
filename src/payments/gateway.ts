// Builds the payment gateway from configuration: the real adapters against the live APIs, or the
// same adapters against the simulator: started in-process (development, demo, tests), or one
// already running at SIMULATOR_URL.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import {
  PAYMENT_METHOD_REGISTRY,
  type PaymentMethodDefinition,
  type SimulatedProviders,
} from './methods/registry.ts';
import type { PaymentGateway } from './payment-gateway.ts';
import type { PaymentProvider } from './provider.ts';
import {
  SIMULATOR_CREDENTIALS,
  simulatedDaraja,
  simulatedFlutterwave,
  startSimulator,
  type Simulator,
} from './simulator/simulator.ts';

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
  // credentials; it sends Airtel callbacks where its own SIMULATOR_AIRTEL_CALLBACK_URL says.
  const simulator = payments.simulatorUrl
    ? externalSimulator(payments.simulatorUrl)
    : await startLocalSimulator(config, adapterLog);
  adapterLog.info(
    { url: simulator.url },
    payments.simulatorUrl ? 'using the payment simulator at SIMULATOR_URL' : 'payment simulator started',
  );
  return {
    gateway: gatewayOver((m) => m.createSimulatedProvider(setting, simulator)),
    close: () => simulator.close(),
  };
}

/** The simulator as configured, on this machine (SIMULATOR_PORT, or any free port). */
export function startLocalSimulator(config: Config, log: Logger): Promise<Simulator> {
  const payments = config.payments;
  return startSimulator({
    port: payments.simulatorPort,
    host: '127.0.0.1',
    timeScale: payments.timeScale,
    airtelCallbackUrl: `${callbackBaseOf(config)}/airtel/{reference}`,
    flutterwaveWebhookUrl: `${callbackBaseOf(config)}/card`,
    log,
  });
}

function callbackBaseOf(config: Config): string {
  return `${config.apiUrl.origin}/v1/payment-callbacks`;
}

function externalSimulator(url: string): SimulatedProviders & Pick<Simulator, 'close'> {
  const { mtn, airtel } = SIMULATOR_CREDENTIALS;
  return {
    url,
    mtn: { ...mtn, baseUrl: `${url}/mtn`, timeoutMs: 15_000 },
    airtel: { ...airtel, baseUrl: `${url}/airtel`, timeoutMs: 15_000 },
    daraja: simulatedDaraja(url),
    flutterwave: simulatedFlutterwave(url),
    close: async () => {},
  };
}
