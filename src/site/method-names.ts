// Each payment method's name in English (the organizer app's and the e-mails' language), from the
// catalogue. Server only: the page script names methods from the page's data (views/layout.ts).
import { catalogueEntry, isPaymentMethod, PAYMENT_METHOD_CATALOGUE } from '../payments/index.ts';
import { locale } from './messages/current.ts';

export const METHOD_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  PAYMENT_METHOD_CATALOGUE.map((m) => [m.key, m.labels.en.name]),
);

export function methodName(method: string | null | undefined): string {
  return (method && METHOD_NAMES[method]) || 'mobile money';
}

/** A method's name in the request's language ("Kadi" in Swahili); the key of one not known. */
export function localMethodName(method: string): string {
  return isPaymentMethod(method) ? catalogueEntry(method).labels[locale()].name : method;
}
