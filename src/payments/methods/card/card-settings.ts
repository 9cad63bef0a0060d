// Cards' live settings: Flutterwave's hosted page, all three settings or none (then no card
// payments), and the largest card payment in each currency.
import { Type } from 'typebox';
import { httpUrl } from '../../../config-schema-parts.ts';
import { currencyExponent } from '../../../platform/currency.ts';
import { allOrNone, defineSettings } from '../method-settings.ts';

const env = {
  FLUTTERWAVE_BASE_URL: Type.Optional(httpUrl('Flutterwave API: https://api.flutterwave.com')),
  FLUTTERWAVE_SECRET_KEY: Type.Optional(
    Type.String({ writeOnly: true, description: "Flutterwave's secret key (FLWSECK-...)" }),
  ),
  FLUTTERWAVE_SECRET_HASH: Type.Optional(
    Type.String({
      writeOnly: true,
      minLength: 16,
      description: "the secret hash set in Flutterwave's dashboard, which its webhooks carry as verif-hash",
    }),
  ),
  CARD_MAX_AMOUNT_UGX: Type.Integer({
    minimum: 1,
    default: 20_000_000,
    description: 'largest total one card payment may ask in UGX',
  }),
  CARD_MAX_AMOUNT_KES: Type.Integer({
    minimum: 1,
    default: 750_000,
    description: 'largest total one card payment may ask in KES, in whole shillings',
  }),
};

const REQUIRED = ['FLUTTERWAVE_BASE_URL', 'FLUTTERWAVE_SECRET_KEY', 'FLUTTERWAVE_SECRET_HASH'] as const;

export interface CardLiveConfig {
  baseUrl: string;
  secretKey: string;
  secretHash: string;
}

export const cardSettings = defineSettings({
  key: 'card',
  env,
  live(vars): CardLiveConfig | undefined {
    const what = 'live card payments need all three Flutterwave settings, or none for no cards';
    if (!allOrNone(vars, REQUIRED, what)) return undefined;
    const { FLUTTERWAVE_BASE_URL, FLUTTERWAVE_SECRET_KEY, FLUTTERWAVE_SECRET_HASH } = vars;
    // allOrNone found all three set.
    if (!FLUTTERWAVE_BASE_URL || !FLUTTERWAVE_SECRET_KEY || !FLUTTERWAVE_SECRET_HASH) return undefined;
    return {
      baseUrl: FLUTTERWAVE_BASE_URL,
      secretKey: FLUTTERWAVE_SECRET_KEY,
      secretHash: FLUTTERWAVE_SECRET_HASH,
    };
  },
  maxAmount: (vars) => ({
    UGX: vars.CARD_MAX_AMOUNT_UGX,
    KES: vars.CARD_MAX_AMOUNT_KES * 10 ** currencyExponent('KES'),
  }),
});
