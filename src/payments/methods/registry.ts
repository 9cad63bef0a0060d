// The payment methods the service takes, server side: each method's browser-safe part
// (payment-method.ts) with its adapter, limits, callback parsing, refunds and simulator numbers.
// Everything that names a method reads it here or in catalogue.ts; a service may be given other
// methods (createService's paymentMethods option, docs/decisions/payment-method-registry.md).
import type { Config } from '../../config.ts';
import type { AdapterOptions } from '../provider-http.ts';
import type { PaymentProvider } from '../provider.ts';
import type { SimulatorPart } from '../simulator/sim-part.ts';
import { airtelProvider } from './airtel/airtel-provider.ts';
import { cardProvider } from './card/card-provider.ts';
import type { PaymentMethod } from './catalogue.ts';
import { momoProvider } from './momo/momo-provider.ts';
import { mpesaProvider } from './mpesa/mpesa-provider.ts';
import type { MethodSettings } from './method-settings.ts';
import type { PaymentMethodInfo } from './payment-method.ts';

export interface CallbackHint {
  /** our payment reference, when the body names one that looks like ours (a UUID v4) */
  reference?: string;
  /**
   * the provider's own id of the payment (a checkout request id), for an attempt whose
   * submission's answer was lost (note-callback.ts keeps it only for an attempt that has none)
   */
  providerReference?: string;
  /**
   * a success callback's receipt (M-Pesa's MpesaReceiptNumber, which a refund names): kept only
   * once the status query confirmed the payment, when it names the attempt's providerReference,
   * its amount (minor units) and number (256…, 254…) match the attempt's
   */
  receipt?: { id: string; providerReference: string; amount: number | null; msisdn: string | null };
}

/** What a method's adapter is built from. */
interface ProviderSetting {
  config: Config;
  /** deadline of each HTTP call */
  timeoutMs: number;
  options: AdapterOptions;
}

export interface PaymentMethodDefinition<
  K extends string = string,
  P extends SimulatorPart = SimulatorPart,
> extends PaymentMethodInfo<K> {
  /**
   * its live settings (<key>-settings.ts): the variables it reads and its config from them, which
   * createLiveProvider and maxAmount read under config.payments.methods[key]
   */
  settings: MethodSettings<K>;
  /**
   * the adapter against the provider's live API (PAYMENT_PROVIDER=live); null when the live
   * settings leave the method out (config.ts refuses half of them), so that no event offers it
   */
  createLiveProvider(setting: ProviderSetting): PaymentProvider | null;
  /** the adapter against the payment simulator at `simulatorUrl`, with its part's test credentials */
  createSimulatedProvider(setting: ProviderSetting, simulatorUrl: string): PaymentProvider;
  /**
   * its part of the payment simulator (payments/simulator/sim-part.ts): the provider contract under
   * its prefix, its adapter settings there, its listing and what tests reach (sim.part(key))
   */
  simulator: P;
  /** the largest total one payment may ask, in minor units */
  maxAmount(config: Config, currency: string): number;
  /**
   * what a callback body names, read from unauthenticated input (never proof: the status query
   * decides); our reference is in the callback's path too. Never throws.
   */
  parseCallback(body: unknown): CallbackHint;
  /**
   * A refund's result the provider POSTs to our route (/v1/payment-callbacks/<key>/refunds/<our
   * refund reference>/<kind>: the results of reversals and B2C payments), for a provider that
   * cannot be asked: the ids it names, which must be those its submission answered with
   * (refunds.provider_ids), and what to keep for getRefundStatus. Null when the body is not one;
   * absent when never POSTed.
   */
  readRefundResult?(kind: string, body: unknown): { ids: Record<string, string>; recorded: unknown } | null;
  /** whether a payment can be returned through this method (actions/refund-order.ts) */
  supportsRefunds: boolean;
  /**
   * whether a refund may give back less than the payment (partial and per-runner refunds): the
   * provider's refund must take an amount, or a part would silently become the whole
   */
  supportsPartialRefunds: boolean;
  /**
   * the simulator's test number for a two-digit scenario code (simulator/scenarios.ts); null for a
   * method paid on the provider's page, whose test cards are typed there
   */
  testNumber: ((code: string) => string) | null;
}

export const PAYMENT_METHOD_REGISTRY = [
  momoProvider,
  airtelProvider,
  mpesaProvider,
  cardProvider,
] as const satisfies readonly PaymentMethodDefinition<PaymentMethod>[];

/** A service's list of methods: at least one, each key once and shaped as a path segment. */
export function checkPaymentMethods(
  methods: readonly PaymentMethodDefinition[],
): readonly PaymentMethodDefinition[] {
  if (methods.length === 0) throw new Error('a service takes at least one payment method');
  const keys = new Set<string>();
  for (const { key } of methods) {
    // The key is a public value: in payment_method, fee schedules and callback paths.
    if (!/^[a-z][a-z0-9_]{1,30}$/.test(key) || keys.has(key))
      throw new Error(`bad or repeated payment method key ${key}`);
    keys.add(key);
  }
  return methods;
}
