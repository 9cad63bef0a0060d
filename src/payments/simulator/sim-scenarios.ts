// The simulator's test numbers (docs/partners/testing.md#sandbox-numbers): the last two digits of a
// test number choose the outcome, the same on every network. Each method's definition gives its
// numbers (methods/registry.ts testNumber; scenarios.ts's testPhoneNumber), and each method's
// simulator part its words for a decline. Imports nothing, so that the parts may read it.

/** A prompt's approval window; scenario 04 fails at its end. */
const PROMPT_WINDOW_MS = 5 * 60_000;

export interface Scenario {
  code: string;
  summary: string;
  /** what the submit call gets */
  submit: 'accept' | 'lose_response' | 'outage';
  /** unscaled delay until the payment is final; null = never */
  settleAfterMs: number | null;
  /** final as failed; each method's simulator says how in its own words (its table by code) */
  declined: boolean;
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
  declined: false,
  callbacks: 1,
  statusShowsFinal: true,
  ...extra,
});

const decline = (code: string, summary: string, settleAfterMs = 2_000, callbacks = 1): Scenario => ({
  code,
  summary,
  submit: 'accept',
  settleAfterMs,
  declined: true,
  callbacks,
  statusShowsFinal: true,
});

export const SCENARIOS: Readonly<Record<string, Scenario>> = {
  '01': success('01', 'success after ~2 s', 2_000),
  '02': success('02', 'success after ~25 s (slow approval)', 25_000),
  '03': decline('03', 'declined by the payer (callback sent twice)', 2_000, 2),
  '04': decline('04', 'no approval: times out at the end of the 5-minute prompt window', PROMPT_WINDOW_MS),
  '05': decline('05', 'insufficient funds'),
  '06': decline('06', 'wrong PIN'),
  '07': decline('07', "over the payer's limit"),
  '08': decline('08', 'payer not registered for mobile money'),
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
 * Test numbers: national (0) + a Ugandan network's 7X, five zeros, then NN; in Kenya 0711, four
 * zeros, then NN (254711 0000NN).
 */
const TEST_NUMBER = /^(?:(?:256|0)?7\d00000|(?:254|0)?7110000)(\d\d)$/;

/** The scenario a phone number (256…, 254…, national 0…, or 9 digits without the 0) selects. */
export function scenarioFor(msisdn: string): Scenario {
  const match = TEST_NUMBER.exec(msisdn);
  return (match && SCENARIOS[match[1]!]) || DEFAULT_SCENARIO;
}

/**
 * What a refund of a payment does, chosen by the payer number's last two digits like the payment
 * itself. The numbers 21 to 24 pay like any other number (success after ~3 s); their refunds differ.
 * Each refund of a payment follows its scenario, a partial one (a refund that names an amount) as a
 * whole one; whatever the scenario, a refund above what the payment's earlier refunds (not failed)
 * left is refused at once (sim-refunds.ts), as is one of a payment refunded in full.
 */
export interface RefundScenario {
  code: string;
  summary: string;
  /** unscaled delay until the refund is final; 0 = at once; null = never */
  settleAfterMs: number | null;
  /** final as failed (refused at once when settleAfterMs is 0, where a network answers so) */
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
