// What a payment method's live settings are: its environment variables (TypeBox properties, which
// config-schema.ts composes into the one schema) and how it reads them into its live config and its
// largest payment per currency. Each method declares its own in its folder (<key>-settings.ts);
// settings.ts lists them. Plain: no adapter is loaded with the configuration.
import type { Static, TObject, TProperties } from 'typebox';
import { ConfigError } from '../../config-error.ts';

export interface MethodSettings<K extends string = string, P extends TProperties = TProperties, L = unknown> {
  key: K;
  /** its environment variables, each named once in the whole schema */
  env: P;
  /**
   * its live config from the parsed variables (PAYMENT_PROVIDER=live only); undefined leaves the
   * method out of a live service. Throws a ConfigError for a half-set group.
   */
  live(env: Static<TObject<P>>): L | undefined;
  /** the largest total one payment may ask, per currency it takes, in minor units */
  maxAmount(env: Static<TObject<P>>): Readonly<Record<string, number>>;
}

/** What the configuration holds for a method (config.payments.methods[key]). */
export interface MethodConfig<L = unknown> {
  /** absent under the simulator, or when the live settings leave the method out */
  live?: L;
  maxAmount: Readonly<Record<string, number>>;
}

/** Settings with their key, variables and live config inferred exactly. */
export function defineSettings<K extends string, P extends TProperties, L>(
  settings: MethodSettings<K, P, L>,
): MethodSettings<K, P, L> {
  return settings;
}

/**
 * A group of settings set together or not at all: true when all are given, false when none is
 * (the method is off); otherwise the ConfigError names those missing.
 */
export function allOrNone(env: object, names: readonly string[], what: string): boolean {
  const values = new Map(Object.entries(env));
  const given = names.filter((name) => values.get(name) !== undefined && values.get(name) !== '');
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

/**
 * A setting a live service cannot start without; `what` says why (the README's "Going live" lists
 * them all).
 */
export function requiredWhenLive(value: string | undefined, name: string, what: string): string {
  if (!value) {
    throw new ConfigError(
      `${name} is required when PAYMENT_PROVIDER=live: ${what} (README, "Going live"); ` +
        'PAYMENT_PROVIDER=simulator runs without them',
    );
  }
  return value;
}
