// Airtel Money's live settings: the Open API credentials (required when live), the disbursement
// PIN and public key for partial refunds, and the largest payment.
import { createPublicKey } from 'node:crypto';
import { Type } from 'typebox';
import { ConfigError } from '../../../config-error.ts';
import { httpUrl } from '../../../config-schema-parts.ts';
import { defineSettings, requiredWhenLive } from '../method-settings.ts';

const env = {
  // Both networks cap one Ugandan merchant payment at UGX 5,000,000
  // (docs/decisions/maximum-per-provider.md).
  AIRTEL_MAX_AMOUNT: Type.Integer({
    minimum: 1,
    default: 5_000_000,
    description: 'largest total one payment may ask of Airtel Money, in UGX',
  }),
  AIRTEL_BASE_URL: Type.Optional(httpUrl('Airtel Money Open API')),
  AIRTEL_CLIENT_ID: Type.Optional(Type.String({ description: 'Airtel Money client id' })),
  AIRTEL_CLIENT_SECRET: Type.Optional(
    Type.String({ writeOnly: true, description: 'Airtel Money client secret' }),
  ),
  // A part of an Airtel payment goes back as a disbursement, which Airtel authorizes by the PIN.
  AIRTEL_DISBURSEMENT_PIN: Type.Optional(
    Type.String({
      writeOnly: true,
      pattern: '^[0-9]{4}$',
      description:
        'Airtel Money disbursement PIN (4 digits), for partial refunds; set with AIRTEL_PUBLIC_KEY',
    }),
  ),
  AIRTEL_PUBLIC_KEY: Type.Optional(
    Type.String({
      minLength: 1,
      description: "Airtel's RSA public key (PEM, or base64 DER) that encrypts the disbursement PIN",
    }),
  ),
};

export interface AirtelLiveConfig {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** the disbursement PIN and Airtel's public key (partial refunds); absent: whole refunds only */
  disbursement?: { pin: string; publicKey: string };
}

// A live service in Uganda always takes Airtel Money (and MTN MoMo): each credential is required.
const required = (value: string | undefined, name: string) =>
  requiredWhenLive(value, name, 'a live start needs every MTN MoMo and Airtel Money credential');

export const airtelSettings = defineSettings({
  key: 'airtel',
  env,
  live(vars): AirtelLiveConfig {
    const disbursement = disbursementConfig(vars.AIRTEL_DISBURSEMENT_PIN, vars.AIRTEL_PUBLIC_KEY);
    return {
      baseUrl: required(vars.AIRTEL_BASE_URL, 'AIRTEL_BASE_URL'),
      clientId: required(vars.AIRTEL_CLIENT_ID, 'AIRTEL_CLIENT_ID'),
      clientSecret: required(vars.AIRTEL_CLIENT_SECRET, 'AIRTEL_CLIENT_SECRET'),
      ...(disbursement ? { disbursement } : {}),
    };
  },
  maxAmount: (vars) => ({ UGX: vars.AIRTEL_MAX_AMOUNT }),
});

/** The disbursement settings (partial refunds): both or neither, the key readable. */
function disbursementConfig(
  pin: string | undefined,
  publicKey: string | undefined,
): AirtelLiveConfig['disbursement'] {
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
