// Buyer contact rules: e-mail shape and Ugandan mobile numbers
// (docs/decisions/network-and-phone-checks.md).
// The hosted checkout's page script bundles this file too (web/checkout-page), so the browser checks
// what the server checks: it stays free of imports and of anything but plain JavaScript.

/** A plain shape check: something@domain.tld, no spaces, at most 254 characters. */
export function isEmail(value: string): boolean {
  return value.length <= 254 && /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(value);
}

/**
 * Normalises a phone number to 256XXXXXXXXX: non-digits are stripped; 0 + 9 digits or 9 digits
 * starting with 7 get 256; 256 + 9 digits is kept, and so is 00256 + 9 digits (the international
 * call prefix written out, as "+" is on a keypad). Anything else is null (invalid_phone_number).
 * Any Ugandan number passes, landlines included: a buyer's contact number need not take mobile
 * money (payments/methods/catalogue.ts isMobileMoneyNumber says whether it does).
 */
export function normalizePhone(value: string): string | null {
  if (value.length > 32) return null;
  const digits = value.replace(/\D/g, '');
  if (/^0\d{9}$/.test(digits)) return `256${digits.slice(1)}`;
  if (/^7\d{8}$/.test(digits)) return `256${digits}`;
  if (/^256\d{9}$/.test(digits)) return digits;
  if (/^00256\d{9}$/.test(digits)) return digits.slice(2);
  return null;
}

/**
 * A number someone can be called on: any Ugandan number normalizePhone takes, or an international
 * one written with + and 7 to 15 digits (an emergency contact may live abroad). Spaces, dots,
 * dashes and brackets between digits are allowed.
 */
export function isPhoneNumber(value: string): boolean {
  if (normalizePhone(value) !== null) return true;
  const digits = value.replace(/\D/g, '').length;
  return /^\+[\d\s().-]+$/.test(value.trim()) && digits >= 7 && digits <= 15;
}
