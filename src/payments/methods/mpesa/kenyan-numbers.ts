// Kenyan mobile numbers for M-Pesa: every way a buyer may type one, normalised to the 2547XXXXXXXX
// or 2541XXXXXXXX that Daraja takes as PartyA and PhoneNumber, and whether Safaricom issued it.

/**
 * Safaricom's mobile prefixes (the national number's first three digits after the 0). Sources: the
 * Communications Authority's Telecommunication Numbering Plan for Kenya (CA/LCS/NNP/OCT/2019),
 * ITU Operational Bulletin notices from the CA (740-742 and 798-799 assigned to Safaricom on
 * 18 July 2016), and the CA's 30 April 2019 release of the 01XX series (0110, 0111 to Safaricom).
 * 0745, 0746, 0748, 0757-0759, 0768, 0769 and 0112-0115 are later assignments as the operator
 * lists them; recheck this table against the CA's current plan before going live.
 */
const SAFARICOM_PREFIXES: readonly (readonly [number, number])[] = [
  [700, 729],
  [740, 743],
  [745, 746],
  [748, 748],
  [757, 759],
  [768, 769],
  [790, 799],
  [110, 115],
];

/** Country code, then a 9-digit national number starting 7 or 1 (mobile). */
const KENYAN_MOBILE = /^254([71]\d{8})$/;

/**
 * `07XXXXXXXX`, `01XXXXXXXX`, `+254…`, `254…` or `00254…`, with spaces, dashes, dots or
 * brackets, -> `254XXXXXXXXX`; null when it is not a Kenyan mobile number.
 */
export function normalizeKenyanMsisdn(input: string): string | null {
  if (typeof input !== 'string' || input.length > 40) return null;
  const compact = input.trim().replace(/[\s\-.()]/g, '');
  let digits: string;
  if (compact.startsWith('+')) digits = compact.slice(1);
  else if (compact.startsWith('00')) digits = compact.slice(2);
  else if (/^0[71]/.test(compact)) digits = `254${compact.slice(1)}`;
  else digits = compact;
  if (!/^\d+$/.test(digits)) return null;
  return KENYAN_MOBILE.test(digits) ? digits : null;
}

/** Whether a number (any format normalizeKenyanMsisdn reads) is Safaricom's, by its prefix. */
export function isSafaricomNumber(input: string): boolean {
  const msisdn = normalizeKenyanMsisdn(input);
  if (msisdn === null) return false;
  const prefix = Number(msisdn.slice(3, 6));
  return SAFARICOM_PREFIXES.some(([low, high]) => prefix >= low && prefix <= high);
}
