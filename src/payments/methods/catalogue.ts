// The payment methods the service takes, as the browser may know them: the hosted checkout's pages
// and page script read them here. Order matters: the first is the default, whose prices a ticket
// type shows before a method is chosen. The server side of each is in registry.ts, in this order.
// Imports only plain data, so web/checkout-page bundles it.
import { airtelMethod } from './airtel/airtel-method.ts';
import { cardMethod } from './card/card-method.ts';
import { momoMethod } from './momo/momo-method.ts';
import { mpesaMethod } from './mpesa/mpesa-method.ts';
import { isOnNetwork } from '../../orders/contact.ts';
import type { PaymentMethodInfo } from './payment-method.ts';

export const PAYMENT_METHOD_CATALOGUE = [momoMethod, airtelMethod, mpesaMethod, cardMethod] as const;

export type PaymentMethod = (typeof PAYMENT_METHOD_CATALOGUE)[number]['key'];

export function isPaymentMethod(value: unknown): value is PaymentMethod {
  return typeof value === 'string' && PAYMENT_METHOD_CATALOGUE.some((m) => m.key === value);
}

/**
 * The method whose network a normalised number (256XXXXXXXXX, 254XXXXXXXXX) is on, by its calling
 * code and prefix; null when no method takes it (landlines, networks we do not take).
 */
export function networkOf<K extends string = PaymentMethod>(
  normalized: string,
  methods: readonly PaymentMethodInfo<K>[] = PAYMENT_METHOD_CATALOGUE as unknown as PaymentMethodInfo<K>[],
): K | null {
  const takes = (m: PaymentMethodInfo<K>) =>
    m.country !== null && isOnNetwork(normalized, m.country, m.prefixes);
  return methods.find(takes)?.key ?? null;
}

/** True when a normalised number can receive a prompt from one of the methods. */
export function isMobileMoneyNumber(normalized: string, methods?: readonly PaymentMethodInfo[]): boolean {
  return networkOf(normalized, methods) !== null;
}

/** A method as organizers know it ("MTN MoMo"); the key itself for one the service does not take. */
export function methodName(key: string): string {
  return PAYMENT_METHOD_CATALOGUE.find((m) => m.key === key)?.provider ?? key;
}

/** The catalogue's entry of a key it holds. */
export function catalogueEntry(key: PaymentMethod): PaymentMethodInfo<PaymentMethod> {
  return PAYMENT_METHOD_CATALOGUE.find((m) => m.key === key)!;
}
