// The payment gateway of a service (its providers, time scale and limits) and where the payment
// path finds it: attached by the composition root (service.ts), since the context knows no module.
import type { AppContext } from '../context.ts';
import type { PaymentMethod } from '../events/fees.ts';
import type { PaymentProvider } from './provider.ts';

export interface PaymentGateway {
  providers: Record<PaymentMethod, PaymentProvider>;
  /** multiplies the prompt window and the polling schedule (tests and demos run faster) */
  timeScale: number;
  /** public base of our callback routes, e.g. API_URL + /v1/payment-callbacks */
  callbackBase: string;
  /** the largest total one payment may ask of each provider, in minor units (UGX) */
  maxAmount: Record<PaymentMethod, number>;
  /** submissions and callback-triggered queries running in the background; awaited at shutdown */
  inflight: Set<Promise<unknown>>;
  /** callback-triggered status queries in flight in this process, by reference (one each) */
  hinted: Map<string, Promise<void>>;
}

/** Each service's gateway, attached by the composition root (service.ts): the context knows no module. */
const gateways = new WeakMap<AppContext, PaymentGateway>();

export function attachPaymentGateway(ctx: AppContext, gateway: PaymentGateway): void {
  gateways.set(ctx, gateway);
}

export function gatewayOf(ctx: AppContext): PaymentGateway {
  const gateway = gateways.get(ctx);
  if (!gateway) throw new Error('payments are not configured');
  return gateway;
}

/** The service's gateway, or undefined when payments are not configured (callbacks are then ignored). */
export function findPaymentGateway(ctx: AppContext): PaymentGateway | undefined {
  return gateways.get(ctx);
}
