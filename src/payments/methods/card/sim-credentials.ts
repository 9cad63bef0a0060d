// The simulator's fixed Flutterwave Standard test credentials: the secret key is the bearer on
// every call; webhooks carry the hash.
export const FLUTTERWAVE_SIM_CREDENTIALS = Object.freeze({
  secretKey: 'FLWSECK_TEST-sim-flutterwave-secret-0001-X',
  secretHash: 'sim-flutterwave-webhook-hash-0001',
});
