// M-Pesa in the payment simulator: Safaricom's Daraja under /mpesa (sim-mpesa.ts), with what it saw
// and sent for tests (sim.part('mpesa')), and the adapter's settings against it.
import { defineSimulatorPart } from '../../simulator/sim-part.ts';
import type { DarajaConfig } from './daraja-config.ts';
import { MPESA_SIM_CREDENTIALS as creds } from './sim-credentials.ts';
import { createMpesaSimulator, type MpesaSimulator } from './sim-mpesa.ts';

/** Daraja's adapter settings against a simulator at `url`, with its test credentials. */
function simulatedDaraja(url: string): DarajaConfig {
  return {
    baseUrl: `${url}/mpesa`,
    consumerKey: creds.consumerKey,
    consumerSecret: creds.consumerSecret,
    shortcode: creds.shortcode,
    passkey: creds.passkey,
    transactionType: 'CustomerPayBillOnline',
    reversal: { initiator: creds.initiator, securityCredential: creds.securityCredential },
    timeoutMs: 15_000,
  };
}

export const mpesaSimulator = defineSimulatorPart({
  prefix: '/mpesa',
  contract: 'M-Pesa Daraja',
  label: 'M-Pesa',
  settings: simulatedDaraja,
  start: ({ state }) => {
    const mpesa = createMpesaSimulator(state);
    const accessors: MpesaSimulator = {
      tokenRequests: mpesa.tokenRequests,
      payments: mpesa.payments,
      reversals: mpesa.reversals,
      b2cPayments: mpesa.b2cPayments,
      deliveries: mpesa.deliveries,
      approve: mpesa.approve,
    };
    return { handle: mpesa.handle, accessors, revokeTokens: mpesa.revokeTokens };
  },
  listing: (daraja) => [
    `M-Pesa (Daraja)       baseUrl ${daraja.baseUrl}`,
    `  consumer key/secret ${daraja.consumerKey} / ${daraja.consumerSecret}`,
    `  shortcode / passkey ${daraja.shortcode} / ${daraja.passkey}`,
    `  transaction type    ${daraja.transactionType} (KES, whole shillings)`,
  ],
  refundNote: 'M-Pesa reverses the whole, pays a part back by B2C',
});
