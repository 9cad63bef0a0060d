// M-Pesa's live settings (Safaricom Daraja, KES events): all of the first five or none (then no
// M-Pesa), the reversal initiator as a pair, the till of a Buy Goods shortcode, and the largest
// payment.
import { Type } from 'typebox';
import { ConfigError } from '../../../config-error.ts';
import { httpUrl } from '../../../config-schema-parts.ts';
import { currencyExponent } from '../../../platform/currency.ts';
import { allOrNone, defineSettings } from '../method-settings.ts';

/** An M-Pesa shortcode, paybill or till: five to seven digits. */
const shortcode = (description: string) =>
  Type.Optional(Type.String({ pattern: '^[0-9]{5,7}$', description }));

const env = {
  MPESA_BASE_URL: Type.Optional(
    httpUrl('Daraja API: https://api.safaricom.co.ke, or https://sandbox.safaricom.co.ke'),
  ),
  MPESA_CONSUMER_KEY: Type.Optional(Type.String({ description: "Daraja app's consumer key" })),
  MPESA_CONSUMER_SECRET: Type.Optional(
    Type.String({ writeOnly: true, description: "Daraja app's consumer secret" }),
  ),
  MPESA_SHORTCODE: shortcode('the paybill (or store) number payments go to'),
  MPESA_PASSKEY: Type.Optional(
    Type.String({ writeOnly: true, description: 'the Lipa na M-Pesa Online passkey of the shortcode' }),
  ),
  MPESA_TRANSACTION_TYPE: Type.Enum(['CustomerPayBillOnline', 'CustomerBuyGoodsOnline'], {
    default: 'CustomerPayBillOnline',
    description: 'CustomerPayBillOnline for a paybill, CustomerBuyGoodsOnline for a till',
  }),
  MPESA_TILL_NUMBER: shortcode('the till (PartyB) of a Buy Goods shortcode'),
  MPESA_INITIATOR: Type.Optional(
    Type.String({ description: 'the Daraja API operator that refunds (reversals, B2C payments)' }),
  ),
  MPESA_SECURITY_CREDENTIAL: Type.Optional(
    Type.String({
      writeOnly: true,
      description:
        "the initiator's password encrypted with Safaricom's certificate; set with MPESA_INITIATOR",
    }),
  ),
  MPESA_B2C_SHORTCODE: shortcode(
    'the B2C shortcode that pays parts of refunds back; default MPESA_SHORTCODE',
  ),
  // Safaricom caps one M-Pesa payment at KES 250,000 (docs/decisions/mpesa-daraja.md).
  MPESA_MAX_AMOUNT: Type.Integer({
    minimum: 1,
    default: 250_000,
    description: 'largest total one payment may ask of M-Pesa, in whole KES',
  }),
};

const REQUIRED = [
  'MPESA_BASE_URL',
  'MPESA_CONSUMER_KEY',
  'MPESA_CONSUMER_SECRET',
  'MPESA_SHORTCODE',
  'MPESA_PASSKEY',
] as const;

/** Daraja's live settings (daraja-config.ts's DarajaConfig, less the deadline of each call). */
export interface MpesaLiveConfig {
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
  shortcode: string;
  passkey: string;
  transactionType: 'CustomerPayBillOnline' | 'CustomerBuyGoodsOnline';
  /** PartyB: the till of a Buy Goods shortcode */
  partyB?: string;
  /** the initiator of reversals and B2C payments; absent: M-Pesa refunds are refused (422) */
  reversal?: { initiator: string; securityCredential: string };
  /** PartyA of B2C payments (a part of a payment going back); absent: the shortcode */
  b2cShortcode?: string;
}

export const mpesaSettings = defineSettings({
  key: 'mpesa',
  env,
  /** All five settings, or none (no M-Pesa); the reversal initiator as a pair. */
  live(vars): MpesaLiveConfig | undefined {
    const what = 'live M-Pesa needs all five Daraja settings, or none for no M-Pesa';
    if (!allOrNone(vars, REQUIRED, what)) return undefined;
    const { MPESA_BASE_URL, MPESA_CONSUMER_KEY, MPESA_CONSUMER_SECRET, MPESA_SHORTCODE, MPESA_PASSKEY } =
      vars;
    // allOrNone found all five set.
    if (
      !MPESA_BASE_URL ||
      !MPESA_CONSUMER_KEY ||
      !MPESA_CONSUMER_SECRET ||
      !MPESA_SHORTCODE ||
      !MPESA_PASSKEY
    )
      return undefined;
    if ((vars.MPESA_INITIATOR === undefined) !== (vars.MPESA_SECURITY_CREDENTIAL === undefined)) {
      throw new ConfigError('MPESA_INITIATOR and MPESA_SECURITY_CREDENTIAL are set together, or neither');
    }
    if (vars.MPESA_TRANSACTION_TYPE === 'CustomerBuyGoodsOnline' && !vars.MPESA_TILL_NUMBER) {
      throw new ConfigError(
        'MPESA_TILL_NUMBER is required with MPESA_TRANSACTION_TYPE=CustomerBuyGoodsOnline',
      );
    }
    return {
      baseUrl: MPESA_BASE_URL,
      consumerKey: MPESA_CONSUMER_KEY,
      consumerSecret: MPESA_CONSUMER_SECRET,
      shortcode: MPESA_SHORTCODE,
      passkey: MPESA_PASSKEY,
      transactionType: vars.MPESA_TRANSACTION_TYPE,
      ...(vars.MPESA_TILL_NUMBER ? { partyB: vars.MPESA_TILL_NUMBER } : {}),
      ...(vars.MPESA_B2C_SHORTCODE ? { b2cShortcode: vars.MPESA_B2C_SHORTCODE } : {}),
      ...(vars.MPESA_INITIATOR && vars.MPESA_SECURITY_CREDENTIAL
        ? {
            reversal: { initiator: vars.MPESA_INITIATOR, securityCredential: vars.MPESA_SECURITY_CREDENTIAL },
          }
        : {}),
    };
  },
  maxAmount: (vars) => ({ KES: vars.MPESA_MAX_AMOUNT * 10 ** currencyExponent('KES') }),
});
