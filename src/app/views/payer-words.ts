// How the app names who paid: a mobile money number, or a card typed on the provider's own page, of
// which nothing is kept (the attempt holds no number), so that a card payment never reads "number ".
import { PAYMENT_METHOD_CATALOGUE } from '../../payments/index.ts';
import { maskPhone, METHOD_NAMES } from '../../site/index.ts';

/** The providers of the methods paid on their own page, by key: cards, "Flutterwave". */
const PAGE_PROVIDERS: ReadonlyMap<string, string> = new Map(
  PAYMENT_METHOD_CATALOGUE.filter((m) => 'hostedPage' in m && m.hostedPage).map((m) => [m.key, m.provider]),
);

const nameOf = (method: string) => METHOD_NAMES[method] ?? method;

/** Whether `method` is paid on the provider's page: no number to show or send a prompt to. */
export const paidOnProviderPage = (method: string | null): boolean =>
  method !== null && PAGE_PROVIDERS.has(method);

/** "Payment prompt of … sent to MTN MoMo number 0772 ••• 456", or "Card payment of … on Flutterwave's page". */
export function attemptStarted(a: { method: string; msisdn: string }, amount: string): string {
  const provider = PAGE_PROVIDERS.get(a.method);
  if (provider) return `${nameOf(a.method)} payment of ${amount} on ${provider}'s page`;
  return `Payment prompt of ${amount} sent to ${nameOf(a.method)} number ${maskPhone(a.msisdn)}`;
}

/** What an attempt's outcome is said of: "Prompt to 0772 ••• 456" or "Card payment". */
export function attemptSubject(a: { method: string; msisdn: string }): string {
  return paidOnProviderPage(a.method) ? `${nameOf(a.method)} payment` : `Prompt to ${maskPhone(a.msisdn)}`;
}

/** Who paid, after "by …": "MTN MoMo from 0772 ••• 456", or "Card" alone. */
export function paidBy(a: { method: string; msisdn: string }): string {
  return paidOnProviderPage(a.method) ? nameOf(a.method) : `${nameOf(a.method)} from ${maskPhone(a.msisdn)}`;
}

/** Where a refund goes: "the number that paid", or "the card that paid". */
export function refundTarget(method: string | null): string {
  return paidOnProviderPage(method) ? 'the card that paid' : 'the number that paid';
}

/** Who confirms a payment or refund of `method`: "the network", or the card provider by name. */
export function confirmerOf(method: string): string {
  return PAGE_PROVIDERS.get(method) ?? 'the network';
}
