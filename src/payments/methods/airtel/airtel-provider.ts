// Airtel Money on the server: the Airtel Money adapter (airtel.ts), live or against the simulator.
import { isPaymentReference } from '../../provider.ts';
import { callbackObject } from '../callback-body.ts';
import type { CallbackHint, PaymentMethodDefinition } from '../registry.ts';
import { airtelMethod } from './airtel-method.ts';
import { airtelSettings } from './airtel-settings.ts';
import { airtelSimulator } from './airtel-simulator.ts';
import { createAirtelProvider } from './airtel.ts';

/** Airtel POSTs {transaction: {id, message, status_code, airtel_money_id}}; id is our reference. */
export function parseAirtelCallback(body: unknown): CallbackHint {
  const transaction = callbackObject(callbackObject(body)?.transaction);
  const reference = transaction?.id;
  return isPaymentReference(reference) ? { reference } : {};
}

export const airtelProvider: PaymentMethodDefinition<'airtel', typeof airtelSimulator> = {
  ...airtelMethod,
  settings: airtelSettings,
  createLiveProvider: ({ config, timeoutMs, options }) => {
    const live = config.payments.methods.airtel.live;
    return live
      ? createAirtelProvider({ ...live, country: 'UG', currency: 'UGX', timeoutMs }, options)
      : null;
  },
  createSimulatedProvider: ({ timeoutMs, options }, url) =>
    createAirtelProvider({ ...airtelSimulator.settings(url), timeoutMs }, options),
  simulator: airtelSimulator,
  maxAmount: (config, currency) => config.payments.methods.airtel.maxAmount[currency] ?? 0,
  parseCallback: parseAirtelCallback,
  supportsRefunds: true,
  // Airtel's refund names the payment (airtel_money_id) and no amount, so a part is paid back as a
  // disbursement; live, that needs the disbursement PIN and key (else the adapter's
  // partialRefundsRefused is the 422).
  supportsPartialRefunds: true,
  testNumber: (code) => `07000000${code}`,
};
