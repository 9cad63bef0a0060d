// The simulator's test numbers (docs/partners/testing.md#sandbox-numbers): the last two digits of a
// test number choose the outcome, the same on both networks. Each method's definition gives its
// numbers (methods/registry.ts testNumber): MTN 07700000NN, Airtel 07000000NN.
import { PAYMENT_METHOD_REGISTRY } from '../methods/registry.ts';
import type { PaymentMethod } from '../provider.ts';

/** MTN's approval window for a prompt; scenario 04 fails at its end. */
const PROMPT_WINDOW_MS = 5 * 60_000;

interface Decline {
  /** MTN request-to-pay reason */
  mtnReason: string;
  /** Airtel transaction status and response code */
  airtelStatus: 'TF' | 'TE';
  airtelCode: string;
  /** transaction.message in Airtel's enquiry and callback */
  message: string;
  /** Daraja's STK ResultCode and ResultDesc (M-Pesa documents no code for 07 and 08: see each) */
  daraja: { resultCode: number; resultDesc: string };
}

export interface Scenario {
  code: string;
  summary: string;
  /** what the submit call gets */
  submit: 'accept' | 'lose_response' | 'outage';
  /** unscaled delay until the payment is final; null = never */
  settleAfterMs: number | null;
  /** null = success */
  decline: Decline | null;
  /** callbacks sent when final (0, 1 or 2) */
  callbacks: number;
  /** false: the status query keeps answering pending even after the callback said final */
  statusShowsFinal: boolean;
}

const success = (
  code: string,
  summary: string,
  settleAfterMs: number,
  extra: Partial<Scenario> = {},
): Scenario => ({
  code,
  summary,
  submit: 'accept',
  settleAfterMs,
  decline: null,
  callbacks: 1,
  statusShowsFinal: true,
  ...extra,
});

const decline = (
  code: string,
  summary: string,
  d: Decline,
  settleAfterMs = 2_000,
  callbacks = 1,
): Scenario => ({
  code,
  summary,
  submit: 'accept',
  settleAfterMs,
  decline: d,
  callbacks,
  statusShowsFinal: true,
});

export const SCENARIOS: Readonly<Record<string, Scenario>> = {
  '01': success('01', 'success after ~2 s', 2_000),
  '02': success('02', 'success after ~25 s (slow approval)', 25_000),
  '03': decline(
    '03',
    'declined by the payer (callback sent twice)',
    {
      mtnReason: 'APPROVAL_REJECTED',
      airtelStatus: 'TF',
      airtelCode: 'DP00800001008',
      message: 'Transaction refused by the payer',
      daraja: { resultCode: 1032, resultDesc: 'Request cancelled by user' },
    },
    2_000,
    2,
  ),
  '04': decline(
    '04',
    'no approval: times out at the end of the 5-minute prompt window',
    {
      mtnReason: 'EXPIRED',
      airtelStatus: 'TF',
      airtelCode: 'DP00800001024',
      message: 'Transaction timed out',
      daraja: { resultCode: 1037, resultDesc: 'DS timeout user cannot be reached' },
    },
    PROMPT_WINDOW_MS,
  ),
  '05': decline('05', 'insufficient funds', {
    mtnReason: 'NOT_ENOUGH_FUNDS',
    airtelStatus: 'TF',
    airtelCode: 'DP00800001007',
    message: 'Not enough balance',
    daraja: { resultCode: 1, resultDesc: 'The balance is insufficient for the transaction' },
  }),
  '06': decline('06', 'wrong PIN', {
    mtnReason: 'NOT_ALLOWED',
    airtelStatus: 'TF',
    airtelCode: 'DP00800001002',
    message: 'Incorrect PIN entered',
    daraja: { resultCode: 2001, resultDesc: 'The initiator information is invalid.' },
  }),
  '07': decline('07', "over the payer's limit", {
    mtnReason: 'PAYER_LIMIT_REACHED',
    airtelStatus: 'TF',
    airtelCode: 'DP00800001003',
    message: 'Exceeds the payer limit',
    // M-Pesa refuses the debit at authorisation, as for a wrong PIN.
    daraja: { resultCode: 2001, resultDesc: 'The initiator information is invalid.' },
  }),
  '08': decline('08', 'payer not registered for mobile money', {
    mtnReason: 'PAYER_NOT_FOUND',
    airtelStatus: 'TF',
    airtelCode: 'DP00800001010',
    message: 'Payer is not registered',
    // A number without M-Pesa never shows the prompt: Daraja says it could not reach it.
    daraja: { resultCode: 1037, resultDesc: 'DS timeout user cannot be reached' },
  }),
  '09': { ...success('09', 'stays pending for ever (no callback)', 0), settleAfterMs: null, callbacks: 0 },
  '10': success('10', 'final only by callback (the status query stays pending)', 2_000, {
    statusShowsFinal: false,
  }),
  '11': success(
    '11',
    'submit response lost (timeout); the payment succeeds; a resend gets "already exists"',
    2_000,
    {
      submit: 'lose_response',
    },
  ),
  '12': {
    ...success('12', 'provider outage (5xx on submit, nothing created)', 0),
    submit: 'outage',
    callbacks: 0,
  },
  '13': success('13', 'success with no callback at all', 2_000, { callbacks: 0 }),
};

export const DEFAULT_SCENARIO: Scenario = success('other', 'any other number: success after ~3 s', 3_000);

/**
 * Test numbers: national (0) + a network's 7X (MTN 77, Airtel 70), five zeros, then NN; in Kenya
 * (M-Pesa) 0711, four zeros, then NN (254711 0000NN).
 */
const TEST_NUMBER = /^(?:(?:256|0)?7\d00000|(?:254|0)?7110000)(\d\d)$/;

/** The scenario a phone number (256…, national 0…, or Airtel's 9 digits) selects. */
export function scenarioFor(msisdn: string): Scenario {
  const match = TEST_NUMBER.exec(msisdn);
  return (match && SCENARIOS[match[1]!]) || DEFAULT_SCENARIO;
}

/** A test number in national format: testPhoneNumber('momo', '01') = '0770000001'. */
export function testPhoneNumber(method: PaymentMethod, code: string): string {
  if (!/^\d\d$/.test(code)) throw new TypeError('scenario code must be two digits');
  const testNumber = PAYMENT_METHOD_REGISTRY.find((m) => m.key === method)!.testNumber;
  if (!testNumber)
    throw new TypeError(`${method} is paid on the provider's page: it has test cards, not numbers`);
  return testNumber(code);
}

/**
 * What a refund of a payment does, chosen by the payer number's last two digits like the payment
 * itself. The numbers 21 to 24 pay like any other number (success after ~3 s); their refunds differ.
 * Each refund of a payment follows its scenario, a partial one (MTN's refund names an amount) as a
 * whole one; whatever the scenario, a refund above what the payment's earlier refunds (not failed)
 * left is refused at once (sim-refunds.ts), as is one of a payment refunded in full.
 */
export interface RefundScenario {
  code: string;
  summary: string;
  /** unscaled delay until the refund is final; 0 = at once; null = never */
  settleAfterMs: number | null;
  /** final as failed (MTN FAILED; Airtel refuses at once when settleAfterMs is 0, else TF) */
  fails: boolean;
}

export const REFUND_SCENARIOS: Readonly<Record<string, RefundScenario>> = {
  '21': { code: '21', summary: 'refund refused at once', settleAfterMs: 0, fails: true },
  '22': { code: '22', summary: 'refund pending, succeeds after ~30 s', settleAfterMs: 30_000, fails: false },
  '23': { code: '23', summary: 'refund pending, fails after ~30 s', settleAfterMs: 30_000, fails: true },
  '24': { code: '24', summary: 'refund stays pending for ever', settleAfterMs: null, fails: false },
};

export const DEFAULT_REFUND_SCENARIO: RefundScenario = {
  code: 'other',
  summary: 'refund succeeds at once',
  settleAfterMs: 0,
  fails: false,
};

/** The refund scenario of a payment made from `msisdn` (any format scenarioFor reads). */
export function refundScenarioFor(msisdn: string): RefundScenario {
  const match = TEST_NUMBER.exec(msisdn);
  return (match && REFUND_SCENARIOS[match[1]!]) || DEFAULT_REFUND_SCENARIO;
}
