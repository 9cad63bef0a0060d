// MTN MoMo's live settings: the Collection credentials (required when live), the Disbursement
// ones for refunds, and the largest payment.
import { Type } from 'typebox';
import { ConfigError } from '../../../config-error.ts';
import { httpUrl } from '../../../config-schema-parts.ts';
import { defineSettings, requiredWhenLive } from '../method-settings.ts';

const env = {
  // Both networks cap one Ugandan merchant payment at UGX 5,000,000
  // (docs/decisions/maximum-per-provider.md).
  MOMO_MAX_AMOUNT: Type.Integer({
    minimum: 1,
    default: 5_000_000,
    description: 'largest total one payment may ask of MTN MoMo, in UGX',
  }),
  MOMO_BASE_URL: Type.Optional(httpUrl('MTN MoMo Collection API')),
  MOMO_SUBSCRIPTION_KEY: Type.Optional(
    Type.String({ writeOnly: true, description: 'MTN MoMo subscription key' }),
  ),
  MOMO_API_USER: Type.Optional(Type.String({ description: 'MTN MoMo API user' })),
  MOMO_API_KEY: Type.Optional(Type.String({ writeOnly: true, description: 'MTN MoMo API key' })),
  MOMO_TARGET_ENVIRONMENT: Type.String({ default: 'mtnuganda', description: 'MTN MoMo target environment' }),
  // MTN issues a subscription key per product: refunds go through Disbursement, not Collection.
  MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: Type.Optional(
    Type.String({
      writeOnly: true,
      description:
        'MTN MoMo Disbursement subscription key, for refunds; without it refunds use the Collection key',
    }),
  ),
  MOMO_DISBURSEMENT_API_USER: Type.Optional(
    Type.String({ description: 'MTN MoMo Disbursement API user; without it refunds use MOMO_API_USER' }),
  ),
  MOMO_DISBURSEMENT_API_KEY: Type.Optional(
    Type.String({ writeOnly: true, description: 'MTN MoMo Disbursement API key, set with its API user' }),
  ),
};

export interface MomoLiveConfig {
  baseUrl: string;
  subscriptionKey: string;
  apiUser: string;
  apiKey: string;
  targetEnvironment: string;
  /** the Disbursement product's credentials (refunds); absent: refunds use the Collection ones */
  disbursement?: { subscriptionKey: string; apiUser?: string; apiKey?: string };
}

// A live service in Uganda always takes MTN MoMo (and Airtel Money): each credential is required.
const required = (value: string | undefined, name: string) =>
  requiredWhenLive(value, name, 'a live start needs every MTN MoMo and Airtel Money credential');

export const momoSettings = defineSettings({
  key: 'momo',
  env,
  live(vars): MomoLiveConfig {
    const disbursement = disbursementConfig(vars);
    const baseUrl = required(vars.MOMO_BASE_URL, 'MOMO_BASE_URL');
    const subscriptionKey = required(vars.MOMO_SUBSCRIPTION_KEY, 'MOMO_SUBSCRIPTION_KEY');
    const apiUser = required(vars.MOMO_API_USER, 'MOMO_API_USER');
    const apiKey = required(vars.MOMO_API_KEY, 'MOMO_API_KEY');
    return {
      baseUrl,
      subscriptionKey,
      apiUser,
      apiKey,
      targetEnvironment: vars.MOMO_TARGET_ENVIRONMENT,
      ...(disbursement ? { disbursement } : {}),
    };
  },
  maxAmount: (vars) => ({ UGX: vars.MOMO_MAX_AMOUNT }),
});

/**
 * The Disbursement credentials, when set. The API user and key go together (one without the other
 * would pair a Disbursement user with the Collection key), and only beside the subscription key.
 */
function disbursementConfig(vars: {
  MOMO_DISBURSEMENT_SUBSCRIPTION_KEY?: string | undefined;
  MOMO_DISBURSEMENT_API_USER?: string | undefined;
  MOMO_DISBURSEMENT_API_KEY?: string | undefined;
}): MomoLiveConfig['disbursement'] {
  const subscriptionKey = vars.MOMO_DISBURSEMENT_SUBSCRIPTION_KEY;
  const apiUser = vars.MOMO_DISBURSEMENT_API_USER;
  const apiKey = vars.MOMO_DISBURSEMENT_API_KEY;
  if (!apiUser !== !apiKey) {
    throw new ConfigError(
      'MOMO_DISBURSEMENT_API_USER and MOMO_DISBURSEMENT_API_KEY are set together or not at all',
    );
  }
  if (!subscriptionKey) {
    if (apiUser) throw new ConfigError('MOMO_DISBURSEMENT_API_USER needs MOMO_DISBURSEMENT_SUBSCRIPTION_KEY');
    return undefined;
  }
  return { subscriptionKey, ...(apiUser && apiKey ? { apiUser, apiKey } : {}) };
}
