// The live settings of Safaricom's Daraja API (types only: reading them from the environment is the
// next step), and the STK password every M-Pesa Express call carries.

/** CustomerPayBillOnline for a paybill; CustomerBuyGoodsOnline for a till (Buy Goods). */
type DarajaTransactionType = 'CustomerPayBillOnline' | 'CustomerBuyGoodsOnline';

export interface DarajaConfig {
  /** https://api.safaricom.co.ke live, https://sandbox.safaricom.co.ke for Safaricom's sandbox */
  baseUrl: string;
  /** the Daraja app's consumer key and secret, for the OAuth client-credentials token */
  consumerKey: string;
  consumerSecret: string;
  /** BusinessShortCode: the paybill number, or for a till the store number it belongs to */
  shortcode: string;
  /** the Lipa na M-Pesa Online passkey Safaricom issues with the shortcode */
  passkey: string;
  transactionType: DarajaTransactionType;
  /** PartyB: for a till, the till number; the shortcode when absent */
  partyB?: string;
  /**
   * The initiator of reversals and B2C payments: the API operator's name and its
   * SecurityCredential (the initiator password encrypted with Safaricom's public certificate,
   * base64). Without them the client refuses both before sending anything.
   */
  reversal?: { initiator: string; securityCredential: string };
  /**
   * PartyA of B2C payments: the Bulk Disbursement Account's shortcode; absent, the shortcode itself
   * (a paybill or till converted to one account that both receives and pays out)
   */
  b2cShortcode?: string;
  /** deadline of each HTTP call; default 15 000 ms */
  timeoutMs?: number;
}

/** Nairobi keeps UTC+3 all year (no daylight saving), which Daraja's Timestamp is written in. */
const NAIROBI_OFFSET_MS = 3 * 3600_000;

/** YYYYMMDDHHmmss in Nairobi time. */
export function darajaTimestamp(now: Date): string {
  return new Date(now.getTime() + NAIROBI_OFFSET_MS).toISOString().replace(/\D/g, '').slice(0, 14);
}

/** The STK Password: base64(shortcode + passkey + timestamp). */
export function stkPassword(shortcode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortcode}${passkey}${timestamp}`, 'utf8').toString('base64');
}
