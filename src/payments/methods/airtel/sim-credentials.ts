// The simulator's fixed Airtel Money test credentials: it accepts these and nothing else.
export const AIRTEL_SIM_CREDENTIALS = Object.freeze({
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
});
