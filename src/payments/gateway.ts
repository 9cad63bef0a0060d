// Builds the payment gateway from configuration: the real adapters against the live APIs, or the
// same adapters against the built-in simulator started in-process (development, demo, tests).
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { createAirtelProvider } from './airtel.ts';
import type { PaymentGateway } from './collect.ts';
import { createMtnMomoProvider } from './mtn-momo.ts';
import { startSimulator } from './simulator/simulator.ts';

export async function createPaymentGateway(
  config: Config,
  log: Logger,
): Promise<{ gateway: PaymentGateway; close: () => Promise<void> }> {
  const payments = config.payments;
  const callbackBase = `${config.apiUrl.origin}/v1/payment-callbacks`;
  const adapterLog = log.child({ component: 'payments' });
  const options = { log: adapterLog };
  if (payments.provider === 'live') {
    return {
      gateway: {
        providers: {
          momo: createMtnMomoProvider({ ...payments.mtn!, timeoutMs: payments.httpTimeoutMs }, options),
          airtel: createAirtelProvider(
            { ...payments.airtel!, country: 'UG', currency: 'UGX', timeoutMs: payments.httpTimeoutMs },
            options,
          ),
        },
        timeScale: payments.timeScale,
        callbackBase,
        inflight: new Set(),
      },
      close: async () => {},
    };
  }
  const simulator = await startSimulator({
    port: payments.simulatorPort,
    host: '127.0.0.1',
    timeScale: payments.timeScale,
    airtelCallbackUrl: `${callbackBase}/airtel/{reference}`,
    log: adapterLog,
  });
  adapterLog.info({ url: simulator.url }, 'payment simulator started');
  return {
    gateway: {
      providers: {
        momo: createMtnMomoProvider({ ...simulator.mtn, timeoutMs: payments.httpTimeoutMs }, options),
        airtel: createAirtelProvider({ ...simulator.airtel, timeoutMs: payments.httpTimeoutMs }, options),
      },
      timeScale: payments.timeScale,
      callbackBase,
      inflight: new Set(),
    },
    close: () => simulator.close(),
  };
}
