// Display formatting for the checkout pages: money in minor units, dates in the event's zone,
// and phone numbers. Pure functions that import only the currency exponent: the page script
// (web/checkout-page) bundles them too.
import { currencyExponent } from '../platform/currency.ts';

const moneyFormats = new Map<string, Intl.NumberFormat>();

function moneyFormat(currency: string): Intl.NumberFormat {
  let format = moneyFormats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat('en-GB', { style: 'currency', currency, currencyDisplay: 'code' });
    moneyFormats.set(currency, format);
  }
  return format;
}

/** 30000 UGX (exponent 0) -> "UGX 30,000" (with a no-break space after the code). */
export function formatMoney(minor: number, currency: string): string {
  const amount = minor / 10 ** currencyExponent(currency);
  return moneyFormat(currency).format(amount).replace(/\s/g, '\u00a0');
}

/** "Saturday 12 July 2026, 06:30" in the event's time zone (in the Intl locale `locale`). */
export function formatDateTime(instant: Date, timeZone: string, locale = 'en-GB'): string {
  return new Intl.DateTimeFormat(locale, {
    timeZone,
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(instant);
}

/** "12 July 2026" in the event's time zone. */
export function formatDate(instant: Date, timeZone: string, locale = 'en-GB'): string {
  return new Intl.DateTimeFormat(locale, {
    timeZone,
    day: 'numeric',
    month: 'long',
    year: 'numeric',
  }).format(instant);
}

/** "14:05" in the event's time zone. */
export function formatTime(instant: Date, timeZone: string, locale = 'en-GB'): string {
  return new Intl.DateTimeFormat(locale, {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(instant);
}

// Each English locale names the zones its readers know ('en-UG' says EAT where 'en-GB' says
// GMT+3; only 'en-GB' says BST, only 'en-US' EST): the first letter name wins.
const ZONE_NAME_LOCALES = ['en-UG', 'en-KE', 'en-US', 'en-GB'];
const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** The short zone name one locale gives at that instant ("EAT", "GMT+3"); null for an unknown zone. */
function shortZoneName(locale: string, timeZone: string, at: Date): string | null {
  const key = `${locale} ${timeZone}`;
  let format = zoneFormats.get(key);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: 'short' });
    } catch {
      return null;
    }
    zoneFormats.set(key, format);
  }
  return format.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? null;
}

/** The zone's abbreviation at `at` ("EAT", "BST"), else its GMT offset ("GMT+9"); null for an unknown zone. */
export function zoneName(timeZone: string, at: Date): string | null {
  const names = ZONE_NAME_LOCALES.map((locale) => shortZoneName(locale, timeZone, at));
  const offset = names[0];
  if (offset === null || offset === undefined) return null;
  return names.find((n) => n !== null && /^[A-Z]{2,5}$/.test(n)) ?? offset;
}

/**
 * "Kampala time, EAT": the zone's city (the id's last part) and its abbreviation at `at` (BST in
 * a London summer, GMT in winter), or its GMT offset where no locale has a name ("Tokyo time,
 * GMT+9"). A zone of no place (UTC, Etc/GMT-3) is its abbreviation alone.
 */
export function zoneLabel(
  timeZone: string,
  at: Date,
  timeOf: (city: string) => string = (city) => `${city} time`,
): string {
  const name = zoneName(timeZone, at);
  if (name === null) return timeZone;
  const parts = timeZone.split('/');
  if (parts.length < 2 || parts[0] === 'Etc') return name;
  return `${timeOf(parts[parts.length - 1]!.replace(/_/g, ' '))}, ${name}`;
}

/**
 * 256772123456 (or 254…) -> "0772 ••• 456": enough for the buyer to recognise the number, not to read it.
 * What is not digits (an erased number's marker, src/platform/erased.ts) is shown as it is.
 */
export function maskPhone(msisdn: string): string {
  if (!/^\d+$/.test(msisdn)) return msisdn;
  const national = /^25[64]\d{9}$/.test(msisdn) ? `0${msisdn.slice(3)}` : msisdn;
  if (national.length < 7) return '•••';
  return `${national.slice(0, 4)} ••• ${national.slice(-3)}`;
}

/** 256772123456 -> 0772123456 (and Kenya's 254…), for a form field the buyer edits. */
export function nationalPhone(msisdn: string): string {
  return /^25[64]\d{9}$/.test(msisdn) ? `0${msisdn.slice(3)}` : msisdn;
}

/** Whole minutes and seconds: 754 -> "12:34". */
export function formatCountdown(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
