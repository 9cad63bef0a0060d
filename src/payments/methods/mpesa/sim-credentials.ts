// The simulator's fixed Daraja (M-Pesa) test credentials: 174379 is the shortcode Safaricom's own
// sandbox uses; the rest is ours.
export const MPESA_SIM_CREDENTIALS = Object.freeze({
  consumerKey: 'sim-mpesa-consumer-key-0001',
  consumerSecret: 'sim-mpesa-consumer-secret-0001',
  shortcode: '174379',
  passkey: 'sim-mpesa-passkey-0001',
  initiator: 'sim-mpesa-initiator',
  securityCredential: 'sim-mpesa-security-credential-0001',
});
