// The simulator's fixed MTN MoMo test credentials: it accepts these and nothing else.
export const MTN_SIM_CREDENTIALS = Object.freeze({
  subscriptionKey: 'sim-mtn-subscription-key-0001',
  apiUser: '6f1c3a52-7d2e-4b8a-9c41-0e5d2f7a8b10',
  apiKey: 'sim-mtn-api-key-0001',
  targetEnvironment: 'mtnuganda',
  // The Disbursement product (refunds) has its own subscription key; the API user is shared.
  disbursement: Object.freeze({ subscriptionKey: 'sim-mtn-disbursement-key-0001' }),
});
