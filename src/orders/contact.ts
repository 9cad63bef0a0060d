// Buyer contact rules: e-mail shape and the mobile numbers of the countries buyers pay from
// (docs/decisions/network-and-phone-checks.md).
// The hosted checkout's page script bundles this file too (web/checkout-page), so the browser checks
// what the server checks: it stays free of imports and of anything but plain JavaScript.

/** A plain shape check: something@domain.tld, no spaces, at most 254 characters. */
export function isEmail(value: string): boolean {
  return value.length <= 254 && /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(value);
}

/** The countries whose mobile numbers buyers pay from: Uganda (UGX events) and Kenya (KES). */
export type PhoneCountry = 'UG' | 'KE';

interface PhonePlan {
  /** the country calling code a normalised number starts with */
  dialCode: string;
  /** the events' currency that makes this the buyers' country */
  currency: string;
  /** as a sentence names the number: "a Ugandan mobile number such as 0772 123456" */
  words: string;
  /** a 9-digit national number typed without its leading 0 (mobile numbers only) */
  bare: RegExp;
}

const PHONE_PLANS: Readonly<Record<PhoneCountry, PhonePlan>> = {
  UG: {
    dialCode: '256',
    currency: 'UGX',
    words: 'a Ugandan mobile number such as 0772 123456',
    bare: /^7\d{8}$/,
  },
  KE: {
    dialCode: '254',
    currency: 'KES',
    words: 'a Kenyan mobile number such as 0712 345678',
    bare: /^[17]\d{8}$/,
  },
};

/** Every phone country, Uganda first. */
export const PHONE_COUNTRIES = Object.keys(PHONE_PLANS) as PhoneCountry[];

/** Whose numbers an event's buyers pay from, by its currency: KES is Kenya, anything else Uganda. */
export function phoneCountryOf(currency: string): PhoneCountry {
  return currency === PHONE_PLANS.KE.currency ? 'KE' : 'UG';
}

/** The country calling code of a phone country: "256". */
export function dialCodeOf(country: PhoneCountry): string {
  return PHONE_PLANS[country].dialCode;
}

/** Whether a normalised number (256…, 254…) is of `country` and, after its calling code, begins with a prefix. */
export function isOnNetwork(msisdn: string, country: PhoneCountry, prefixes: readonly string[]): boolean {
  const dialCode = dialCodeOf(country);
  return msisdn.startsWith(dialCode) && prefixes.some((p) => msisdn.slice(dialCode.length).startsWith(p));
}

/** What a phone field asks for, for a field's error: "a Ugandan mobile number such as 0772 123456". */
export function phoneWords(country: PhoneCountry): string {
  return PHONE_PLANS[country].words;
}

/**
 * Normalises a phone number of `country` (Uganda by default) to its calling code and 9 digits
 * (256XXXXXXXXX, 254XXXXXXXXX): non-digits are stripped; 0 + 9 digits, or 9 digits of a mobile
 * number, get the calling code; the calling code + 9 digits is kept, and so is 00 + it (the
 * international call prefix written out, as "+" is on a keypad). Anything else is null
 * (invalid_phone_number). Any number of the country passes, landlines included: a buyer's contact
 * number need not take mobile money (payments/methods/catalogue.ts isMobileMoneyNumber says
 * whether it does).
 */
export function normalizePhone(value: string, country: PhoneCountry = 'UG'): string | null {
  if (value.length > 32) return null;
  const { dialCode, bare } = PHONE_PLANS[country];
  const digits = value.replace(/\D/g, '');
  if (/^0\d{9}$/.test(digits)) return `${dialCode}${digits.slice(1)}`;
  if (bare.test(digits)) return `${dialCode}${digits}`;
  if (digits.length === 12 && digits.startsWith(dialCode)) return digits;
  if (digits.length === 14 && digits.startsWith(`00${dialCode}`)) return digits.slice(2);
  return null;
}

/**
 * A number someone can be called on: any number of the country normalizePhone takes, or an international
 * one written with + and 7 to 15 digits (an emergency contact may live abroad). Spaces, dots,
 * dashes and brackets between digits are allowed.
 */
export function isPhoneNumber(value: string, country: PhoneCountry = 'UG'): boolean {
  if (normalizePhone(value, country) !== null) return true;
  const digits = value.replace(/\D/g, '').length;
  return /^\+[\d\s().-]+$/.test(value.trim()) && digits >= 7 && digits <= 15;
}
