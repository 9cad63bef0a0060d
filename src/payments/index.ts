// The payments provider layer as other modules see it: the port, the two adapters, callback
// hints, and the simulator for development and tests.
export * from './provider.ts';
export { createMtnMomoProvider, type MtnConfig } from './mtn-momo.ts';
export { airtelMsisdn, createAirtelProvider, type AirtelConfig } from './airtel.ts';
export { MTN_REASONS, mapMtnReason, mapMtnStatus } from './mtn-momo-status.ts';
export {
  AIRTEL_RESPONSE_CODES,
  mapAirtelEnquiry,
  mapAirtelResponseCode,
  mapAirtelSubmit,
} from './airtel-status.ts';
export { parseAirtelCallback, parseMtnCallback, type CallbackHint } from './callbacks.ts';
export type { AdapterOptions, ProviderLog } from './provider-http.ts';
export { mapMtnRefundStatus } from './mtn-momo-status.ts';
export { mapAirtelRefundEnquiry, mapAirtelRefundSubmit } from './airtel-status.ts';
export {
  SIMULATOR_CREDENTIALS,
  startSimulator,
  type Simulator,
  type SimulatorOptions,
  type Submission,
} from './simulator/simulator.ts';
export {
  REFUND_SCENARIOS,
  SCENARIOS,
  refundScenarioFor,
  scenarioFor,
  testPhoneNumber,
} from './simulator/scenarios.ts';
