// Cards in the payment simulator: Flutterwave's API and hosted card page under /flutterwave
// (sim-flutterwave.ts), its webhooks to the address its dashboard keeps, the test cards, and the
// adapter's settings against it.
import { defineSimulatorPart } from '../../simulator/sim-part.ts';
import type { FlutterwaveConfig } from './flutterwave.ts';
import { FLUTTERWAVE_SIM_CREDENTIALS as creds } from './sim-credentials.ts';
import { TEST_CARDS, TEST_OTP } from './sim-flutterwave-page.ts';
import {
  createFlutterwaveSim,
  handleFlutterwaveRequest,
  type FlutterwaveWebhook,
} from './sim-flutterwave.ts';

/** What tests reach of the simulator's Flutterwave (sim.part('card')). */
interface CardSimulator {
  /** Flutterwave webhook deliveries, oldest first */
  webhooks(): FlutterwaveWebhook[];
}

export const cardSimulator = defineSimulatorPart({
  prefix: '/flutterwave',
  contract: 'Flutterwave',
  label: 'Flutterwave',
  settings: (url): FlutterwaveConfig => ({
    baseUrl: `${url}/flutterwave`,
    secretKey: creds.secretKey,
    secretHash: creds.secretHash,
    timeoutMs: 15_000,
  }),
  // Flutterwave's webhook address is set in its dashboard: one for every payment.
  registeredCallback: { variable: 'SIMULATOR_FLUTTERWAVE_WEBHOOK_URL', path: '' },
  start: ({ state, callbackUrl }) => {
    const flutterwave = createFlutterwaveSim(callbackUrl);
    const accessors: CardSimulator = { webhooks: () => flutterwave.webhooks.map((w) => ({ ...w })) };
    return { handle: (call) => handleFlutterwaveRequest(state, flutterwave, call), accessors };
  },
  listing: (flutterwave, callbackUrl) => [
    `Flutterwave (cards)   baseUrl ${flutterwave.baseUrl}`,
    `  secret key / hash   ${flutterwave.secretKey} / ${flutterwave.secretHash}`,
    `  webhooks to         ${callbackUrl ?? '(none: set SIMULATOR_FLUTTERWAVE_WEBHOOK_URL)'}`,
  ],
  notes: [
    `Test cards, typed on the simulator's card page (any future expiry, any CVV; the OTP is ${TEST_OTP}):`,
    ...TEST_CARDS.map((c) => `  ${c.number}  ${c.summary}`),
  ],
});
