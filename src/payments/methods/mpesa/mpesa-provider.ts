// M-Pesa on the server: the Daraja client (daraja.ts) behind the payment port, live or against the
// simulator. Daraja names a payment by its own CheckoutRequestID, which the submission returns and
// the attempt keeps (payment_attempts.provider_reference) for the STK push query.
import type { PaymentProvider } from '../../provider.ts';
import type { AdapterOptions } from '../../provider-http.ts';
import type { CallbackHint, PaymentMethodDefinition } from '../registry.ts';
import { createDarajaClient } from './daraja.ts';
import type { DarajaConfig } from './daraja-config.ts';
import { mpesaMethod } from './mpesa-method.ts';

/** Why an M-Pesa payment is not refunded here: Daraja's reversal needs the receipt and an initiator. */
const REFUNDS_REFUSED =
  'M-Pesa payments are not refunded through the service yet: reverse the payment from the M-Pesa org portal';

/** The port over a Daraja client: our reference for logs, Daraja's CheckoutRequestID for queries. */
export function createMpesaProvider(config: DarajaConfig, options: AdapterOptions = {}): PaymentProvider {
  const daraja = createDarajaClient(config, options);
  return {
    method: mpesaMethod.key,
    async requestPayment(req) {
      const pushed = await daraja.stkPush({
        ...req,
        // What the buyer's phone shows against the paybill: Daraja keeps 12 characters.
        accountReference: req.description,
      });
      if (pushed.kind === 'submitted')
        return { kind: 'submitted', providerReference: pushed.checkoutRequestId };
      return pushed;
    },
    async getStatus(_reference, providerReference) {
      // Without Daraja's id (its answer to the push was lost) there is nothing to ask about.
      if (!providerReference) return { status: 'not_found' };
      const status = await daraja.queryStkPush(providerReference);
      if (status.status !== 'failed') return status;
      const { reason: _reason, ...failed } = status;
      return failed;
    },
    requestRefund: async () => ({ kind: 'rejected', message: REFUNDS_REFUSED }),
    getRefundStatus: async () => ({ status: 'not_found' }),
  };
}

/** Daraja POSTs {Body: {stkCallback: {CheckoutRequestID, ...}}}: our reference is in its path only. */
const parseMpesaCallback = (): CallbackHint => ({});

export const mpesaProvider: PaymentMethodDefinition<'mpesa'> = {
  ...mpesaMethod,
  createLiveProvider: ({ config, timeoutMs, options }) =>
    config.payments.mpesa ? createMpesaProvider({ ...config.payments.mpesa, timeoutMs }, options) : null,
  createSimulatedProvider: ({ timeoutMs, options }, simulator) =>
    createMpesaProvider({ ...simulator.daraja, timeoutMs }, options),
  maxAmount: (config) => config.payments.maxAmount.mpesa,
  parseCallback: parseMpesaCallback,
  supportsRefunds: false,
  supportsPartialRefunds: false,
  testNumber: (code) => `07110000${code}`,
};
