// MTN MoMo in the payment simulator: the Collection and Disbursement contracts under /mtn
// (sim-mtn-momo.ts), and the adapter's settings against it with the test credentials.
import { defineSimulatorPart } from '../../simulator/sim-part.ts';
import { approveTransaction } from '../../simulator/sim-transactions.ts';
import type { MtnConfig } from './mtn-momo.ts';
import { MTN_SIM_CREDENTIALS as creds } from './sim-credentials.ts';
import { handleMtnRequest, mtnRules } from './sim-mtn-momo.ts';

export const momoSimulator = defineSimulatorPart({
  prefix: '/mtn',
  contract: 'MTN MoMo Collection',
  label: 'MTN',
  settings: (url): MtnConfig => ({
    baseUrl: `${url}/mtn`,
    subscriptionKey: creds.subscriptionKey,
    apiUser: creds.apiUser,
    apiKey: creds.apiKey,
    targetEnvironment: creds.targetEnvironment,
    disbursement: { subscriptionKey: creds.disbursement.subscriptionKey },
    timeoutMs: 15_000,
  }),
  start: ({ state }) => ({
    handle: (call) => handleMtnRequest(state, call),
    accessors: {},
    approve: (reference) => approveTransaction(state, mtnRules, 'momo', reference),
  }),
  listing: (mtn) => [
    `MTN MoMo Collection   baseUrl ${mtn.baseUrl}`,
    `  subscription key    ${mtn.subscriptionKey}`,
    `  API user / key      ${mtn.apiUser} / ${mtn.apiKey}`,
    `  target environment  ${mtn.targetEnvironment}`,
    `  Disbursement key    ${mtn.disbursement?.subscriptionKey ?? mtn.subscriptionKey} (refunds)`,
  ],
});
