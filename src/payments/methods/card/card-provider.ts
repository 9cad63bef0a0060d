// Cards on the server: Flutterwave's hosted payment (flutterwave.ts) behind the payment port, live or
// against the simulator. The payment answers with the page the buyer pays on; verify by our
// reference (with what the attempt asked) is the only answer that pays. Its webhook is one address
// for every payment, trusted only with the secret hash, and only ever prompts a verify.
import type { PaymentProvider } from '../../provider.ts';
import type { AdapterOptions } from '../../provider-http.ts';
import type { PaymentMethodDefinition } from '../registry.ts';
import { cardMethod } from './card-method.ts';
import { cardSettings } from './card-settings.ts';
import { cardSimulator } from './card-simulator.ts';
import { createFlutterwaveClient, type FlutterwaveConfig } from './flutterwave.ts';
import { readFlutterwaveWebhook } from './flutterwave-status.ts';

function createCardProvider(config: FlutterwaveConfig, options: AdapterOptions = {}): PaymentProvider {
  const flutterwave = createFlutterwaveClient(config, options);
  return {
    method: cardMethod.key,
    async requestPayment(req) {
      if (!req.returnUrl || !req.payer) throw new TypeError('a card payment needs returnUrl and payer');
      const created = await flutterwave.createPayment({
        reference: req.reference,
        amount: req.amount,
        currency: req.currency,
        redirectUrl: req.returnUrl,
        customer: { ...req.payer, phone: null },
        title: req.description,
      });
      if (created.kind === 'created') return { kind: 'submitted', redirectUrl: created.link };
      return created;
    },
    getStatus(reference, _providerReference, asked) {
      // A bug in the caller: a card's verify counts only against what was asked.
      if (!asked) throw new TypeError('a card status needs the amount and currency asked');
      return flutterwave.verify({ reference, ...asked });
    },
    readWebhook: (headers, body) => {
      const reading = readFlutterwaveWebhook(headers['verif-hash'], body, config.secretHash);
      return reading.kind === 'verify' ? reading.reference : null;
    },
    async requestRefund(req) {
      const sent = await flutterwave.requestRefund(req);
      if (sent.kind !== 'submitted') return sent;
      return { kind: 'submitted', providerIds: { refund_id: sent.refundId } };
    },
    async getRefundStatus(req) {
      const refundId = req.providerIds?.refund_id;
      // The answer to the refund was lost: Flutterwave cannot be asked by our reference, and sending
      // it again could return the money twice, so it stays pending for a person to settle.
      if (!refundId) return { status: 'pending' };
      return flutterwave.getRefundStatus(refundId);
    },
  };
}

export const cardProvider: PaymentMethodDefinition<'card', typeof cardSimulator> = {
  ...cardMethod,
  settings: cardSettings,
  createLiveProvider: ({ config, timeoutMs, options }) => {
    const live = config.payments.methods.card.live;
    return live ? createCardProvider({ ...live, timeoutMs }, options) : null;
  },
  createSimulatedProvider: ({ timeoutMs, options }, url) =>
    createCardProvider({ ...cardSimulator.settings(url), timeoutMs }, options),
  simulator: cardSimulator,
  maxAmount: (config, currency) => config.payments.methods.card.maxAmount[currency] ?? 0,
  // Flutterwave's webhook names no reference in its path: readWebhook reads it, with its hash.
  parseCallback: () => ({}),
  supportsRefunds: true,
  // Flutterwave's refund takes an amount.
  supportsPartialRefunds: true,
  // Test cards are typed on the provider's page (docs/partners/testing.md), never given to us.
  testNumber: null,
};
