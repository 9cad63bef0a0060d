// Airtel Money in the payment simulator: the Open API under /airtel (sim-airtel.ts), its callbacks
// to the address Airtel keeps registered, and the adapter's settings against it.
import { defineSimulatorPart } from '../../simulator/sim-part.ts';
import { approveTransaction } from '../../simulator/sim-transactions.ts';
import type { AirtelConfig } from './airtel.ts';
import { airtelRules, handleAirtelRequest } from './sim-airtel.ts';
import { AIRTEL_SIM_CREDENTIALS as creds } from './sim-credentials.ts';

export const airtelSimulator = defineSimulatorPart({
  prefix: '/airtel',
  contract: 'Airtel Money Open API',
  label: 'Airtel',
  settings: (url): AirtelConfig => ({
    baseUrl: `${url}/airtel`,
    clientId: creds.clientId,
    clientSecret: creds.clientSecret,
    country: creds.country,
    currency: creds.currency,
    disbursement: { ...creds.disbursement },
    timeoutMs: 15_000,
  }),
  // Airtel has the callback URL registered, not sent per request; `{reference}` is replaced.
  registeredCallback: { variable: 'SIMULATOR_AIRTEL_CALLBACK_URL', path: '/{reference}' },
  start: ({ state }) => ({
    handle: (call) => handleAirtelRequest(state, call),
    accessors: {},
    approve: (reference) => approveTransaction(state, airtelRules, 'airtel', reference),
  }),
  listing: (airtel, callbackUrl) => [
    `Airtel Money Open API baseUrl ${airtel.baseUrl}`,
    `  client id / secret  ${airtel.clientId} / ${airtel.clientSecret}`,
    `  country / currency  ${airtel.country} / ${airtel.currency}`,
    `  callbacks to        ${callbackUrl ?? '(none: set SIMULATOR_AIRTEL_CALLBACK_URL)'}`,
  ],
});
