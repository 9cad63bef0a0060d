// The payment settings of the configuration (config.ts): the simulator or the live providers, each
// live provider's credentials checked together, and each method's largest payment.
import { createPublicKey } from 'node:crypto';
import { ConfigError } from './config-error.ts';
import type { Env, EnvName } from './config-schema.ts';
import { currencyExponent } from './platform/currency.ts';

export interface PaymentsConfig {
  /** simulator: the built-in provider simulator, started in-process; live: the real APIs */
  provider: NonNullable<Env['PAYMENT_PROVIDER']>;
  /**
   * SIMULATOR_URL: a simulator already running there (`npm run simulator`) instead of one started
   * in-process, e.g. so that it outlives this process; without a trailing slash
   */
  simulatorUrl?: string;
  /** multiplies the prompt window and polling schedule, and the simulator's delays (tests: 0.01) */
  timeScale: number;
  /** simulator port (0 = any free port) */
  simulatorPort: number;
  /** deadline of each call to a provider */
  httpTimeoutMs: number;
  /** largest total one payment may ask of each provider, in minor units of its currency */
  maxAmount: { momo: number; airtel: number; mpesa: number; card: Readonly<Record<string, number>> };
  mtn?: {
    baseUrl: string;
    subscriptionKey: string;
    apiUser: string;
    apiKey: string;
    targetEnvironment: string;
    /** the Disbursement product's credentials (refunds); absent: refunds use the Collection ones */
    disbursement?: { subscriptionKey: string; apiUser?: string; apiKey?: string };
  };
  airtel?: {
    baseUrl: string;
    clientId: string;
    clientSecret: string;
    /** the disbursement PIN and Airtel's public key (partial refunds); absent: whole refunds only */
    disbursement?: { pin: string; publicKey: string };
  };
  /** Daraja (M-Pesa, KES); absent when live without MPESA_* settings: then no event offers M-Pesa */
  mpesa?: {
    baseUrl: string;
    consumerKey: string;
    consumerSecret: string;
    shortcode: string;
    passkey: string;
    transactionType: NonNullable<Env['MPESA_TRANSACTION_TYPE']>;
    partyB?: string;
    /** the initiator of reversals and B2C payments; absent: M-Pesa refunds are refused (422) */
    reversal?: { initiator: string; securityCredential: string };
    /** PartyA of B2C payments (a part of a payment going back); absent: the shortcode */
    b2cShortcode?: string;
  };
  /** Flutterwave (cards); absent when live without FLUTTERWAVE_* settings: then no event offers cards */
  card?: { baseUrl: string; secretKey: string; secretHash: string };
}

function required(env: Env, name: EnvName): string {
  const value = env[name];
  if (typeof value !== 'string' || !value)
    throw new ConfigError(
      `${name} is required when PAYMENT_PROVIDER=live: a live start needs every MTN MoMo and Airtel ` +
        'Money credential (README, "Going live"); PAYMENT_PROVIDER=simulator runs without them',
    );
  return value;
}

/**
 * The Disbursement credentials, when set. The API user and key go together (one without the other
 * would pair a Disbursement user with the Collection key), and only beside the subscription key.
 */
function disbursementConfig(env: Env): NonNullable<PaymentsConfig['mtn']>['disbursement'] {
  const subscriptionKey = env.MOMO_DISBURSEMENT_SUBSCRIPTION_KEY;
  const apiUser = env.MOMO_DISBURSEMENT_API_USER;
  const apiKey = env.MOMO_DISBURSEMENT_API_KEY;
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

/** The Airtel disbursement settings (partial refunds): both or neither, the key readable. */
function airtelDisbursementConfig(env: Env): { pin: string; publicKey: string } | undefined {
  const pin = env.AIRTEL_DISBURSEMENT_PIN;
  const publicKey = env.AIRTEL_PUBLIC_KEY;
  if (!pin !== !publicKey) {
    throw new ConfigError('AIRTEL_DISBURSEMENT_PIN and AIRTEL_PUBLIC_KEY are set together or not at all');
  }
  if (!pin || !publicKey) return undefined;
  try {
    const text = publicKey.trim();
    const key = text.startsWith('-----BEGIN')
      ? createPublicKey(text)
      : createPublicKey({
          key: Buffer.from(text.replace(/\s+/g, ''), 'base64'),
          format: 'der',
          type: 'spki',
        });
    if (key.asymmetricKeyType !== 'rsa') throw new Error('not RSA');
  } catch {
    throw new ConfigError('AIRTEL_PUBLIC_KEY must be an RSA public key, PEM or base64 DER');
  }
  return { pin, publicKey };
}

export function paymentsConfig(env: Env): PaymentsConfig {
  const provider = env.PAYMENT_PROVIDER ?? (env.NODE_ENV === 'production' ? 'live' : 'simulator');
  const simulatorUrl = env.SIMULATOR_URL && new URL(env.SIMULATOR_URL).toString().replace(/\/+$/, '');
  if (simulatorUrl && provider !== 'simulator') {
    throw new ConfigError('SIMULATOR_URL applies only to PAYMENT_PROVIDER=simulator');
  }
  if (simulatorUrl && env.SIMULATOR_PORT !== undefined) {
    throw new ConfigError(
      'set SIMULATOR_URL (a running simulator) or SIMULATOR_PORT (one started here), not both',
    );
  }
  const common: PaymentsConfig = {
    provider,
    timeScale: env.PAYMENT_TIME_SCALE ?? env.SIMULATOR_TIME_SCALE ?? 1,
    simulatorPort: env.SIMULATOR_PORT ?? 0,
    httpTimeoutMs: env.PAYMENT_HTTP_TIMEOUT_MS,
    maxAmount: {
      momo: env.MOMO_MAX_AMOUNT,
      airtel: env.AIRTEL_MAX_AMOUNT,
      mpesa: env.MPESA_MAX_AMOUNT * 10 ** currencyExponent('KES'),
      card: { UGX: env.CARD_MAX_AMOUNT_UGX, KES: env.CARD_MAX_AMOUNT_KES * 10 ** currencyExponent('KES') },
    },
  };
  if (provider === 'simulator') return { ...common, ...(simulatorUrl ? { simulatorUrl } : {}) };
  const disbursement = disbursementConfig(env);
  const airtelDisbursement = airtelDisbursementConfig(env);
  return {
    ...common,
    mtn: {
      baseUrl: required(env, 'MOMO_BASE_URL'),
      subscriptionKey: required(env, 'MOMO_SUBSCRIPTION_KEY'),
      apiUser: required(env, 'MOMO_API_USER'),
      apiKey: required(env, 'MOMO_API_KEY'),
      targetEnvironment: env.MOMO_TARGET_ENVIRONMENT,
      ...(disbursement ? { disbursement } : {}),
    },
    airtel: {
      baseUrl: required(env, 'AIRTEL_BASE_URL'),
      clientId: required(env, 'AIRTEL_CLIENT_ID'),
      clientSecret: required(env, 'AIRTEL_CLIENT_SECRET'),
      ...(airtelDisbursement ? { disbursement: airtelDisbursement } : {}),
    },
    ...mpesaConfig(env),
    ...cardConfig(env),
  };
}

/** The names of a group of settings set together or not at all: those given (none: the method is off). */
function allOrNone(env: Env, names: readonly EnvName[], what: string): boolean {
  const given = names.filter((name) => env[name] !== undefined && env[name] !== '');
  if (given.length === 0) return false;
  const missing = names.filter((name) => !given.includes(name));
  if (missing.length > 0) {
    throw new ConfigError(
      `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} required with ${given.join(', ')}: ` +
        `${what} (README, "Going live")`,
    );
  }
  return true;
}

const FLUTTERWAVE_REQUIRED = [
  'FLUTTERWAVE_BASE_URL',
  'FLUTTERWAVE_SECRET_KEY',
  'FLUTTERWAVE_SECRET_HASH',
] as const;

/** Live cards: Flutterwave's three settings, or none (no card payments). */
function cardConfig(env: Env): Pick<PaymentsConfig, 'card'> {
  const what = 'live card payments need all three Flutterwave settings, or none for no cards';
  if (!allOrNone(env, FLUTTERWAVE_REQUIRED, what)) return {};
  return {
    card: {
      baseUrl: env.FLUTTERWAVE_BASE_URL!,
      secretKey: env.FLUTTERWAVE_SECRET_KEY!,
      secretHash: env.FLUTTERWAVE_SECRET_HASH!,
    },
  };
}

const MPESA_REQUIRED = [
  'MPESA_BASE_URL',
  'MPESA_CONSUMER_KEY',
  'MPESA_CONSUMER_SECRET',
  'MPESA_SHORTCODE',
  'MPESA_PASSKEY',
] as const;

/** Live M-Pesa: all five settings, or none (no M-Pesa); the reversal initiator as a pair. */
function mpesaConfig(env: Env): Pick<PaymentsConfig, 'mpesa'> {
  const what = 'live M-Pesa needs all five Daraja settings, or none for no M-Pesa';
  if (!allOrNone(env, MPESA_REQUIRED, what)) return {};
  if ((env.MPESA_INITIATOR === undefined) !== (env.MPESA_SECURITY_CREDENTIAL === undefined)) {
    throw new ConfigError('MPESA_INITIATOR and MPESA_SECURITY_CREDENTIAL are set together, or neither');
  }
  if (env.MPESA_TRANSACTION_TYPE === 'CustomerBuyGoodsOnline' && !env.MPESA_TILL_NUMBER) {
    throw new ConfigError('MPESA_TILL_NUMBER is required with MPESA_TRANSACTION_TYPE=CustomerBuyGoodsOnline');
  }
  return {
    mpesa: {
      baseUrl: env.MPESA_BASE_URL!,
      consumerKey: env.MPESA_CONSUMER_KEY!,
      consumerSecret: env.MPESA_CONSUMER_SECRET!,
      shortcode: env.MPESA_SHORTCODE!,
      passkey: env.MPESA_PASSKEY!,
      transactionType: env.MPESA_TRANSACTION_TYPE,
      ...(env.MPESA_TILL_NUMBER ? { partyB: env.MPESA_TILL_NUMBER } : {}),
      ...(env.MPESA_B2C_SHORTCODE ? { b2cShortcode: env.MPESA_B2C_SHORTCODE } : {}),
      ...(env.MPESA_INITIATOR && env.MPESA_SECURITY_CREDENTIAL
        ? { reversal: { initiator: env.MPESA_INITIATOR, securityCredential: env.MPESA_SECURITY_CREDENTIAL } }
        : {}),
    },
  };
}
