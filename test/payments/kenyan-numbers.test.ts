// Kenyan numbers for M-Pesa: every way a buyer types one, normalised to 254XXXXXXXXX, and
// Safaricom's prefixes told apart from Airtel's and Telkom's.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isSafaricomNumber, normalizeKenyanMsisdn } from '../../src/payments/methods/mpesa/kenyan-numbers.ts';

describe('normalizeKenyanMsisdn', () => {
  const cases: Array<[string, string | null]> = [
    ['0712345678', '254712345678'],
    ['0112345678', '254112345678'],
    ['+254712345678', '254712345678'],
    ['254712345678', '254712345678'],
    ['00254712345678', '254712345678'],
    ['0712 345 678', '254712345678'],
    ['0712-345-678', '254712345678'],
    ['+254 (712) 345-678', '254712345678'],
    [' 0110 000 001 ', '254110000001'],
    ['712345678', null], // no 0 nor country code: ambiguous, refused
    ['071234567', null], // one digit short
    ['07123456789', null], // one digit long
    ['0212345678', null], // a landline (Mombasa area code)
    ['+256772123456', null], // Uganda
    ['2540712345678', null],
    ['07l2345678', null],
    ['', null],
    ['+', null],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} -> ${expected}`, () =>
      assert.equal(normalizeKenyanMsisdn(input), expected));
  }
});

describe('isSafaricomNumber', () => {
  const safaricom = [
    '0700000000',
    '0711000001',
    '0729999999',
    '0740123456',
    '0743123456',
    '0745123456',
    '0746123456',
    '0748123456',
    '0757123456',
    '0759123456',
    '0768123456',
    '0769123456',
    '0790123456',
    '0799123456',
    '0110123456',
    '0115123456',
    '+254722000000',
  ];
  const others = [
    '0730123456',
    '0744123456',
    '0747123456',
    '0750123456',
    '0756123456',
    '0760123456',
    '0770123456',
    '0780123456',
    '0789123456',
    '0100123456',
    '0102123456',
    '0116123456',
    'not a number',
  ];
  for (const number of safaricom)
    test(`${number} is Safaricom's`, () => assert.equal(isSafaricomNumber(number), true));
  for (const number of others) test(`${number} is not`, () => assert.equal(isSafaricomNumber(number), false));
});
