// The simulator's fixed test credentials, shared by both networks' routes and the wiring.

/** Fixed test credentials: the simulator accepts these and nothing else. */
export const SIMULATOR_CREDENTIALS = Object.freeze({
  mtn: Object.freeze({
    subscriptionKey: 'sim-mtn-subscription-key-0001',
    apiUser: '6f1c3a52-7d2e-4b8a-9c41-0e5d2f7a8b10',
    apiKey: 'sim-mtn-api-key-0001',
    targetEnvironment: 'mtnuganda',
    // The Disbursement product (refunds) has its own subscription key; the API user is shared.
    disbursement: Object.freeze({ subscriptionKey: 'sim-mtn-disbursement-key-0001' }),
  }),
  airtel: Object.freeze({
    clientId: 'sim-airtel-client-0001',
    clientSecret: 'sim-airtel-secret-0001',
    country: 'UG',
    currency: 'UGX',
    // Partial refunds are disbursements: the adapter encrypts this PIN under this key. The
    // simulator takes any PIN present and decrypts nothing; the key's private half was discarded.
    disbursement: Object.freeze({
      pin: '4921',
      publicKey:
        'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtMq+HWsC9wTBsV3gxg9ccews5bAGVwqu2K13CD952MM4vsonbK4WfifhdgLwzAsVUVLa+CT2yZwN2aU2Ej217gwkTNewXucEm024omrkJXX16ztW/a5Jp0Zx12hd3lIeeu+iR9AjNmIfTbZtmn9g874bXpos6k+tmvL/q5VXJVZJL3oBXuJ7MWoWrI6S6q+RHdPVBgOUxtZtdu+tmbviPLX0vUw3sXoCzB1QExdDG6DMo2DSDTuNxypCfxQ2kIAlx+WAhrBnfYvV1YO3lIXHm89Z/nTQcGlomtb/Fl+hfeKniTWdJkzxt7JTtj1B7Z4x+XYGHDntpXTyj5SrRFVFpwIDAQAB',
    }),
  }),
  // Daraja (M-Pesa): 174379 is the shortcode Safaricom's own sandbox uses; the rest is ours.
  mpesa: Object.freeze({
    consumerKey: 'sim-mpesa-consumer-key-0001',
    consumerSecret: 'sim-mpesa-consumer-secret-0001',
    shortcode: '174379',
    passkey: 'sim-mpesa-passkey-0001',
    initiator: 'sim-mpesa-initiator',
    securityCredential: 'sim-mpesa-security-credential-0001',
  }),
  // Flutterwave Standard: the secret key is the bearer on every call; webhooks carry the hash.
  flutterwave: Object.freeze({
    secretKey: 'FLWSECK_TEST-sim-flutterwave-secret-0001-X',
    secretHash: 'sim-flutterwave-webhook-hash-0001',
  }),
});
