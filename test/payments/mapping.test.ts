// The pure parts of the provider layer as tables: MTN reasons and statuses, Airtel codes and
// statuses, submit answers, callback hints, amounts, and the simulator's outcome -> failure_kind map.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AIRTEL_RESPONSE_CODES,
  mapAirtelEnquiry,
  mapAirtelResponseCode,
  mapAirtelSubmit,
} from '../../src/payments/methods/airtel/airtel-status.ts';
import { airtelMsisdn } from '../../src/payments/methods/airtel/airtel.ts';
import { parseAirtelCallback } from '../../src/payments/methods/airtel/airtel-provider.ts';
import { parseMtnCallback } from '../../src/payments/methods/momo/momo-provider.ts';
import { MTN_REASONS, mapMtnReason, mapMtnStatus } from '../../src/payments/methods/momo/mtn-momo-status.ts';
import {
  MIN_AMOUNT,
  PROVIDER_FAILURE_KINDS,
  checkPaymentRequest,
  cleanDescription,
  formatMajorAmount,
  isPaymentReference,
  parseMajorAmount,
  type ProviderFailureKind,
} from '../../src/payments/provider.ts';
import { SCENARIOS, scenarioFor, testPhoneNumber } from '../../src/payments/simulator/scenarios.ts';
import { AIRTEL_DECLINES } from '../../src/payments/methods/airtel/sim-airtel.ts';
import { MTN_DECLINES } from '../../src/payments/methods/momo/sim-mtn-momo.ts';
import { FAILURE_KINDS } from '../../src/orders/order-state.ts';
import { normalizePhone } from '../../src/orders/contact.ts';
import { networkOf } from '../../src/payments/methods/catalogue.ts';
import { paymentRequest } from './payments-helpers.ts';

const REF = '3f2b8c1e-4d5a-4b6c-8d7e-9f0a1b2c3d4e';

/** The currencies MTN's and Airtel's methods take. */
const UGX = ['UGX'];

describe('MTN reasons -> failure kind', () => {
  const TABLE: [string, ProviderFailureKind, RegExp?][] = [
    ['APPROVAL_REJECTED', 'payment_declined', /declined/],
    ['PAYMENT_NOT_APPROVED', 'payment_declined'],
    ['TRANSACTION_CANCELED', 'payment_declined', /cancelled/],
    ['NOT_ALLOWED', 'payment_declined', /PIN/],
    ['PAYER_LIMIT_REACHED', 'payment_declined', /over the payer's mobile money limit/],
    ['PAYER_NOT_FOUND', 'payment_declined', /not registered/],
    ['EXPIRED', 'payment_timeout'],
    ['NOT_ENOUGH_FUNDS', 'insufficient_funds'],
    ['INVALID_CURRENCY', 'provider_error'],
    ['PAYEE_NOT_ALLOWED_TO_RECEIVE', 'provider_error'],
    ['INTERNAL_PROCESSING_ERROR', 'provider_error'],
    ['SERVICE_UNAVAILABLE', 'provider_error'],
    ['COULD_NOT_PERFORM_TRANSACTION', 'provider_error'],
    ['NOT_ALLOWED_TARGET_ENVIRONMENT', 'provider_error'],
    ['SOMETHING_MTN_ADDS_NEXT_YEAR', 'provider_error', /SOMETHING_MTN_ADDS_NEXT_YEAR/],
  ];
  for (const [reason, kind, message] of TABLE) {
    test(`${reason} -> ${kind}`, () => {
      for (const form of [reason, { code: reason, message: 'from MTN' }]) {
        const mapped = mapMtnReason(form);
        assert.equal(mapped.failureKind, kind);
        assert.equal(mapped.providerCode, reason);
        if (message) assert.match(mapped.message, message);
      }
    });
  }

  test('a missing or malformed reason is provider_error', () => {
    for (const reason of [undefined, null, '', 42, {}, { code: 7 }]) {
      const mapped = mapMtnReason(reason);
      assert.equal(mapped.failureKind, 'provider_error');
      assert.equal(mapped.providerCode, undefined);
    }
  });

  test('every table entry uses a failure kind the orders accept', () => {
    for (const entry of Object.values(MTN_REASONS))
      assert.ok(PROVIDER_FAILURE_KINDS.includes(entry.failureKind));
    assert.deepEqual(
      [...PROVIDER_FAILURE_KINDS].sort(),
      FAILURE_KINDS.filter((k) => k !== 'hold_expired').sort(),
    );
  });
});

describe('MTN status body -> StatusResult', () => {
  const TABLE: [string, unknown, unknown][] = [
    ['PENDING', { status: 'PENDING', amount: '1500', currency: 'UGX' }, { status: 'pending' }],
    [
      'SUCCESSFUL',
      { status: 'SUCCESSFUL', amount: '1500', currency: 'UGX', financialTransactionId: '1234567890' },
      { status: 'successful', amount: 1500, currency: 'UGX', providerTransactionId: '1234567890' },
    ],
    [
      'SUCCESSFUL with "1500.00" and no transaction id',
      { status: 'SUCCESSFUL', amount: '1500.00', currency: 'UGX' },
      { status: 'successful', amount: 1500, currency: 'UGX', providerTransactionId: null },
    ],
    [
      'SUCCESSFUL with an amount UGX cannot hold',
      { status: 'SUCCESSFUL', amount: '1500.50', currency: 'UGX', financialTransactionId: '1' },
      { status: 'successful', amount: null, currency: 'UGX', providerTransactionId: '1' },
    ],
    [
      'SUCCESSFUL in a currency we do not know',
      { status: 'SUCCESSFUL', amount: '15', currency: 'EUR', financialTransactionId: '1' },
      { status: 'successful', amount: null, currency: 'EUR', providerTransactionId: '1' },
    ],
    [
      'FAILED with a string reason',
      { status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' },
      { status: 'failed', ...MTN_REASONS.NOT_ENOUGH_FUNDS, providerCode: 'NOT_ENOUGH_FUNDS' },
    ],
    [
      'FAILED with an object reason',
      { status: 'FAILED', reason: { code: 'EXPIRED', message: 'expired' } },
      { status: 'failed', ...MTN_REASONS.EXPIRED, providerCode: 'EXPIRED' },
    ],
    [
      'FAILED with no reason',
      { status: 'FAILED' },
      { status: 'failed', failureKind: 'provider_error', message: 'MTN reported the payment failed.' },
    ],
    [
      'REJECTED (older environments)',
      { status: 'REJECTED' },
      { status: 'failed', ...MTN_REASONS.APPROVAL_REJECTED, providerCode: 'APPROVAL_REJECTED' },
    ],
    [
      'TIMEOUT (older environments)',
      { status: 'TIMEOUT' },
      { status: 'failed', ...MTN_REASONS.EXPIRED, providerCode: 'EXPIRED' },
    ],
    ['an unknown status stays pending', { status: 'ONGOING' }, { status: 'pending' }],
    ['no status', { amount: '1' }, null],
    ['not an object', 'SUCCESSFUL', null],
  ];
  for (const [name, body, expected] of TABLE) {
    test(name, () => assert.deepEqual(mapMtnStatus(body), expected));
  }
});

describe('Airtel response codes', () => {
  const TABLE: [string, string, ProviderFailureKind?, RegExp?][] = [
    ['DP00800001000', 'pending'],
    ['DP00800001001', 'success'],
    ['DP00800001002', 'failed', 'payment_declined', /wrong PIN/],
    ['DP00800001003', 'failed', 'payment_declined', /over the payer's Airtel Money limit/],
    ['DP00800001004', 'failed', 'provider_error', /amount/],
    ['DP00800001005', 'failed', 'provider_error'],
    ['DP00800001006', 'pending'],
    ['DP00800001007', 'failed', 'insufficient_funds'],
    ['DP00800001008', 'failed', 'payment_declined', /declined/],
    ['DP00800001010', 'failed', 'payment_declined', /not registered/],
    ['DP00800001024', 'failed', 'payment_timeout'],
    ['DP00800001025', 'not_found'],
    ['DP00800001029', 'failed', 'payment_timeout', /expired/],
    ['DP00800001099', 'failed', 'provider_error', /DP00800001099/],
    ['', 'failed', 'provider_error'],
  ];
  for (const [code, kind, failureKind, message] of TABLE) {
    test(`${code || '(none)'} -> ${failureKind ?? kind}`, () => {
      const meaning = mapAirtelResponseCode(code);
      assert.equal(meaning.kind, kind);
      if (meaning.kind === 'failed') {
        assert.equal(meaning.failureKind, failureKind);
        if (message) assert.match(meaning.message, message);
      }
    });
  }
  test('the Airtel code table holds the 13 codes mapped above', () => {
    assert.equal(Object.keys(AIRTEL_RESPONSE_CODES).length, 13);
  });
});

describe('Airtel status enquiry -> StatusResult', () => {
  const body = (transaction: Record<string, unknown> | null, responseCode?: string) => ({
    data: transaction ? { transaction } : {},
    status: {
      code: '200',
      message: 'SUCCESS',
      result_code: 'ESB000010',
      response_code: responseCode,
      success: true,
    },
  });
  const TABLE: [string, unknown, unknown][] = [
    [
      'TS with amount (the simulator)',
      body(
        { id: REF, status: 'TS', airtel_money_id: 'CI123', amount: 2500, currency: 'UGX' },
        'DP00800001001',
      ),
      { status: 'successful', amount: 2500, currency: 'UGX', providerTransactionId: 'CI123' },
    ],
    [
      'TS as Airtel documents it (no amount)',
      body({ id: REF, status: 'TS', airtel_money_id: 'CI123', message: 'success' }, 'DP00800001001'),
      { status: 'successful', amount: null, currency: null, providerTransactionId: 'CI123' },
    ],
    ['TIP', body({ id: REF, status: 'TIP' }, 'DP00800001006'), { status: 'pending' }],
    ['TA (ambiguous)', body({ id: REF, status: 'TA' }, 'DP00800001000'), { status: 'pending' }],
    ['TI', body({ id: REF, status: 'TI' }), { status: 'pending' }],
    [
      'TE (expired) without a code',
      body({ id: REF, status: 'TE' }),
      {
        status: 'failed',
        failureKind: 'payment_timeout',
        message: 'The payment request expired before the payer approved it.',
        providerCode: 'TE',
      },
    ],
    [
      'TE with DP00800001024',
      body({ id: REF, status: 'TE' }, 'DP00800001024'),
      {
        status: 'failed',
        failureKind: 'payment_timeout',
        message: 'The payer did not approve the payment in time.',
        providerCode: 'DP00800001024',
      },
    ],
    [
      'TF with DP00800001024 (timed out)',
      body({ id: REF, status: 'TF' }, 'DP00800001024'),
      {
        status: 'failed',
        failureKind: 'payment_timeout',
        message: 'The payer did not approve the payment in time.',
        providerCode: 'DP00800001024',
      },
    ],
    [
      'TF with DP00800001007',
      body({ id: REF, status: 'TF' }, 'DP00800001007'),
      {
        status: 'failed',
        failureKind: 'insufficient_funds',
        message: "The payer's Airtel Money balance is too low.",
        providerCode: 'DP00800001007',
      },
    ],
    [
      'TF with a success code contradicts itself: provider_error',
      body({ id: REF, status: 'TF' }, 'DP00800001001'),
      {
        status: 'failed',
        failureKind: 'provider_error',
        message: 'Airtel reported the payment failed.',
        providerCode: 'DP00800001001',
      },
    ],
    ['TF with DP00800001025', body({ id: REF, status: 'TF' }, 'DP00800001025'), { status: 'not_found' }],
    ['no transaction, DP00800001025', body(null, 'DP00800001025'), { status: 'not_found' }],
    ['no transaction, DP00800001006', body(null, 'DP00800001006'), { status: 'pending' }],
    ['no transaction, no code', body(null), null],
    ['an unknown transaction status stays pending', body({ id: REF, status: 'TX' }), { status: 'pending' }],
    ['not JSON', undefined, null],
  ];
  for (const [name, input, expected] of TABLE) {
    test(name, () => assert.deepEqual(mapAirtelEnquiry(input), expected));
  }
});

describe('Airtel payment answer -> SubmitResult', () => {
  const envelope = (status: Record<string, unknown>) => ({ data: {}, status });
  const TABLE: [string, unknown, unknown][] = [
    [
      'success',
      envelope({ code: '200', result_code: 'ESB000010', response_code: 'DP00800001006', success: true }),
      { kind: 'submitted' },
    ],
    [
      'duplicate id',
      envelope({ code: '200', result_code: 'ESB000041', success: false }),
      { kind: 'already_submitted' },
    ],
    [
      'msisdn refused',
      envelope({ code: '400', result_code: 'ESB000033', success: false }),
      {
        kind: 'rejected',
        failureKind: 'invalid_phone_number',
        message: 'Airtel refused the phone number.',
        providerCode: 'ESB000033',
      },
    ],
    [
      'refused with a payer code',
      envelope({ code: '200', result_code: 'ESB000011', response_code: 'DP00800001010', success: false }),
      {
        kind: 'rejected',
        failureKind: 'payment_declined',
        message:
          AIRTEL_RESPONSE_CODES.DP00800001010!.kind === 'failed'
            ? AIRTEL_RESPONSE_CODES.DP00800001010!.message
            : '',
        providerCode: 'DP00800001010',
      },
    ],
    [
      'not successful yet in process: unknown, poll',
      envelope({ code: '200', result_code: 'ESB000011', response_code: 'DP00800001006', success: false }),
      { kind: 'unknown', message: 'Airtel gave a contradictory answer (DP00800001006).' },
    ],
    [
      'refused for another reason',
      envelope({ code: '400', result_code: 'ESB000008', message: 'Field validation', success: false }),
      {
        kind: 'rejected',
        failureKind: 'provider_error',
        message: 'Airtel refused the payment request (Field validation).',
        providerCode: 'ESB000008',
      },
    ],
    ['no envelope', { hello: 'world' }, null],
    ['not JSON', undefined, null],
  ];
  for (const [name, input, expected] of TABLE) {
    test(name, () => assert.deepEqual(mapAirtelSubmit(input), expected));
  }
});

describe('simulator outcomes map to the failure kinds the sandbox numbers document', () => {
  // docs/partners/testing.md#sandbox-numbers: 03 and 06 payment_declined, 04 payment_timeout, 05
  // insufficient_funds, 07 and 08 payment_declined with a message saying why, 12 provider_error.
  const EXPECTED: Record<string, [ProviderFailureKind, RegExp]> = {
    '03': ['payment_declined', /declined/],
    '04': ['payment_timeout', /./],
    '05': ['insufficient_funds', /balance/],
    '06': ['payment_declined', /PIN/],
    '07': ['payment_declined', /limit/],
    '08': ['payment_declined', /not registered/],
  };
  for (const [code, [kind, message]] of Object.entries(EXPECTED)) {
    test(`${code}: ${kind} on both networks`, () => {
      assert.equal(SCENARIOS[code]!.declined, true);
      const decline = AIRTEL_DECLINES[code]!;
      const mtn = mapMtnStatus({ status: 'FAILED', reason: MTN_DECLINES[code] });
      const airtel = mapAirtelEnquiry({
        data: { transaction: { id: REF, status: decline.status } },
        status: { response_code: decline.code, success: true },
      });
      for (const result of [mtn, airtel]) {
        assert.equal(result?.status, 'failed');
        if (result?.status !== 'failed') continue;
        assert.equal(result.failureKind, kind);
        assert.match(result.message, message);
      }
    });
  }
  test('12 is an outage on submit; everything else is accepted', () => {
    assert.equal(SCENARIOS['12']!.submit, 'outage');
    assert.equal(SCENARIOS['11']!.submit, 'lose_response');
    for (const code of ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '13']) {
      assert.equal(SCENARIOS[code]!.submit, 'accept', code);
    }
  });
});

describe('simulator test numbers', () => {
  test('national test numbers normalise to each network and select their scenario', () => {
    for (const code of Object.keys(SCENARIOS)) {
      const mtn = normalizePhone(testPhoneNumber('momo', code))!;
      const airtel = normalizePhone(testPhoneNumber('airtel', code))!;
      assert.equal(networkOf(mtn), 'momo');
      assert.equal(networkOf(airtel), 'airtel');
      assert.equal(scenarioFor(mtn).code, code);
      assert.equal(scenarioFor(airtelMsisdn(airtel)).code, code);
    }
  });
  test('other numbers succeed after ~3 s', () => {
    for (const number of ['256772123456', '256770000099', '256771000001', '752123456']) {
      assert.equal(scenarioFor(number).code, 'other', number);
    }
  });
});

describe('callback hints', () => {
  test('MTN: externalId when it is a UUID v4', () => {
    assert.deepEqual(parseMtnCallback({ externalId: REF, status: 'SUCCESSFUL' }), { reference: REF });
    assert.deepEqual(parseMtnCallback(JSON.stringify({ externalId: REF })), { reference: REF });
    for (const junk of [{ externalId: 'ord_123' }, { externalId: 42 }, {}, null, 'not json', [REF]]) {
      assert.deepEqual(parseMtnCallback(junk), {});
    }
  });
  test('Airtel: transaction.id when it is a UUID v4', () => {
    assert.deepEqual(parseAirtelCallback({ transaction: { id: REF, status_code: 'TS' } }), {
      reference: REF,
    });
    assert.deepEqual(parseAirtelCallback(JSON.stringify({ transaction: { id: REF } })), { reference: REF });
    for (const junk of [{ transaction: { id: '../x' } }, { transaction: 'x' }, { id: REF }, undefined, '{']) {
      assert.deepEqual(parseAirtelCallback(junk), {});
    }
  });
});

describe('amounts, references and request checks', () => {
  test('minor units <-> provider strings', () => {
    assert.equal(formatMajorAmount(15000, 0), '15000');
    assert.equal(formatMajorAmount(1505, 2), '15.05');
    assert.equal(formatMajorAmount(5, 2), '0.05');
    const PARSE: [unknown, number, number | null][] = [
      ['15000', 0, 15000],
      [15000, 0, 15000],
      ['15000.00', 0, 15000],
      ['15000.5', 0, null],
      ['15.05', 2, 1505],
      ['15.1', 2, 1510],
      ['-5', 0, null],
      ['1e3', 0, null],
      ['', 0, null],
      [null, 0, null],
      [Number.NaN, 0, null],
    ];
    for (const [input, exponent, expected] of PARSE)
      assert.equal(parseMajorAmount(input, exponent), expected, String(input));
  });

  test('references are UUID v4', () => {
    assert.ok(isPaymentReference(REF));
    assert.ok(!isPaymentReference('3f2b8c1e-4d5a-1b6c-8d7e-9f0a1b2c3d4e')); // version 1
    assert.ok(!isPaymentReference('ord_123'));
    assert.ok(!isPaymentReference(undefined));
  });

  test('MIN_AMOUNT is UGX 500 and KES 1, and the check refuses below it and accepts it', () => {
    assert.equal(MIN_AMOUNT.UGX, 500);
    assert.equal(MIN_AMOUNT.KES, 100);
    assert.deepEqual(checkPaymentRequest(paymentRequest({ amount: 499 }), UGX), {
      kind: 'rejected',
      failureKind: 'provider_error',
      message: 'amount below the provider minimum',
    });
    assert.equal(checkPaymentRequest(paymentRequest({ amount: 500 }), UGX), null);
  });

  test('other refusals before any call', () => {
    const CASES: [Partial<Parameters<typeof paymentRequest>[0]>, ProviderFailureKind, RegExp][] = [
      [{ amount: 1000.5 }, 'provider_error', /whole number/],
      [{ amount: Number.NaN }, 'provider_error', /whole number/],
      [{ currency: 'USD' }, 'provider_error', /USD is not supported/],
      // A currency with a minimum, but not one the method takes.
      [{ currency: 'KES' }, 'provider_error', /KES is not supported/],
      [{ msisdn: '0772123456' }, 'invalid_phone_number', /256/],
      [{ msisdn: '25677212345' }, 'invalid_phone_number', /256/],
    ];
    for (const [overrides, kind, message] of CASES) {
      const result = checkPaymentRequest(paymentRequest(overrides), UGX);
      assert.equal(result?.failureKind, kind, JSON.stringify(overrides));
      assert.match(result!.message, message);
    }
    assert.throws(() => checkPaymentRequest(paymentRequest({ reference: 'ord_1' }), UGX), TypeError);
  });

  test('descriptions lose characters providers refuse and are cut to length', () => {
    assert.equal(cleanDescription('Kampala 10K & 5K <b>tickets</b>', 160), 'Kampala 10K 5K b tickets /b');
    assert.equal(cleanDescription('x'.repeat(200), 64).length, 64);
    assert.equal(cleanDescription('&&&', 64), 'Payment');
  });
});
