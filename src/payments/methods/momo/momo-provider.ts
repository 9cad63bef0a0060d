// MTN Mobile Money on the server: the MTN MoMo adapter (mtn-momo.ts), live or against the simulator.
import { isPaymentReference } from '../../provider.ts';
import { callbackObject } from '../callback-body.ts';
import type { CallbackHint, PaymentMethodDefinition } from '../registry.ts';
import { momoMethod } from './momo-method.ts';
import { momoSettings } from './momo-settings.ts';
import { momoSimulator } from './momo-simulator.ts';
import { createMtnMomoProvider } from './mtn-momo.ts';

/**
 * MTN PUTs the request-to-pay status body to our X-Callback-Url: {financialTransactionId,
 * externalId, amount, currency, payer, status, reason}. We send our reference as externalId.
 */
export function parseMtnCallback(body: unknown): CallbackHint {
  const object = callbackObject(body);
  const reference = object?.externalId ?? object?.referenceId;
  return isPaymentReference(reference) ? { reference } : {};
}

export const momoProvider: PaymentMethodDefinition<'momo', typeof momoSimulator> = {
  ...momoMethod,
  settings: momoSettings,
  createLiveProvider: ({ config, timeoutMs, options }) => {
    const live = config.payments.methods.momo.live;
    return live ? createMtnMomoProvider({ ...live, timeoutMs }, options) : null;
  },
  createSimulatedProvider: ({ timeoutMs, options }, url) =>
    createMtnMomoProvider({ ...momoSimulator.settings(url), timeoutMs }, options),
  simulator: momoSimulator,
  maxAmount: (config, currency) => config.payments.methods.momo.maxAmount[currency] ?? 0,
  parseCallback: parseMtnCallback,
  supportsRefunds: true,
  // Disbursement's refund names its amount (referenceIdToRefund with amount).
  supportsPartialRefunds: true,
  testNumber: (code) => `07700000${code}`,
};
