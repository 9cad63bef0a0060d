// Every word a buyer reads in the hosted checkout, in one catalog per language: English and
// Swahili. The Swahili catalog has the English one's type, so a missing message fails the build.
// Pure data and functions: the page script bundles the part it needs (`script`) too.
import { en } from './en.ts';
import { sw } from './sw.ts';

export type Messages = typeof en;
export const CATALOGS = { en, sw } satisfies Record<string, Messages>;
export type Locale = keyof typeof CATALOGS;

export function isLocale(value: string): value is Locale {
  return Object.hasOwn(CATALOGS, value);
}

/** What each language is called in itself, for the switch on the page. */
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', sw: 'Kiswahili' };

/** The Intl locale of dates and numbers in each language. */
export const INTL_LOCALES: Record<Locale, string> = { en: 'en-GB', sw: 'sw-UG' };

/** The catalog of a stored language (an order's), English when none or one we do not have. */
export function catalogOf(value: string | null | undefined): {
  locale: Locale;
  messages: Messages;
  intl: string;
} {
  const locale = value && isLocale(value) ? value : 'en';
  return { locale, messages: CATALOGS[locale], intl: INTL_LOCALES[locale] };
}
