// The payment gateway of a service (its providers, time scale and limits), the context's `gateway`:
// built at start by the composition root (service.ts), declared here since the context knows no module.
import { ApiError } from '../platform/index.ts';
import type { PaymentMethod } from './methods/catalogue.ts';
import type { PaymentMethodDefinition } from './methods/registry.ts';
import type { PaymentProvider } from './provider.ts';

export interface PaymentGateway {
  /** the methods this service takes (methods/registry.ts, or createService's paymentMethods) */
  methods: readonly PaymentMethodDefinition[];
  /** each method's adapter, by key (every registry method has one; a service may add more) */
  providers: Record<PaymentMethod, PaymentProvider> & Record<string, PaymentProvider | undefined>;
  /** multiplies the prompt window and the polling schedule (tests and demos run faster) */
  timeScale: number;
  /** public base of our callback routes, e.g. API_URL + /v1/payment-callbacks */
  callbackBase: string;
  /** where a provider's hosted page sends the buyer back: SITE_URL + /checkout/return, then our reference */
  returnBase: string;
  /** the largest total one payment may ask of each provider, by currency, in minor units */
  maxAmount: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** submissions and callback-triggered queries running in the background; awaited at shutdown */
  inflight: Set<Promise<unknown>>;
  /** callback-triggered status queries in flight in this process, by reference (one each) */
  hinted: Map<string, Promise<void>>;
}

declare module '../context.ts' {
  interface AppContext {
    readonly gateway: PaymentGateway;
  }
}

/** The definition of a method this service takes; a key it does not take is validation_failed. */
export function methodOf(gateway: PaymentGateway, key: string): PaymentMethodDefinition {
  const method = gateway.methods.find((m) => m.key === key);
  if (!method) {
    const keys = gateway.methods.map((m) => m.key).join(', ');
    throw new ApiError('validation_failed', `payment_method must be one of ${keys}.`, {
      errors: [{ field: 'payment_method', message: `must be one of ${keys}` }],
    });
  }
  return method;
}

/** The adapter of an attempt's method (a method once taken stays in the registry). */
export function providerOf(gateway: PaymentGateway, key: string): PaymentProvider {
  const provider = gateway.providers[key];
  if (!provider) throw new Error(`no adapter for payment method ${key}`);
  return provider;
}
