// The buyer contact rules (orders/contact.ts) that the server and the hosted checkout's page script
// both apply: Ugandan mobile numbers, their network, and the e-mail shape.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isEmail, normalizePhone } from '../../src/orders/contact.ts';
import { isMobileMoneyNumber, networkOf } from '../../src/payments/methods/catalogue.ts';

describe('normalizePhone', () => {
  const cases: [string, string | null][] = [
    ['0772123456', '256772123456'],
    ['0772 123 456', '256772123456'],
    ['0772-123-456', '256772123456'],
    ['772123456', '256772123456'],
    ['256772123456', '256772123456'],
    ['+256 772 123456', '256772123456'],
    ['(+256) 70-000-0001', '256700000001'],
    ['0312123456', '256312123456'],
    ['00256772123456', '256772123456'],
    ['00256 772 123 456', '256772123456'],
    ['00-256-772-123-456', '256772123456'],
    ['+00256 700 000001', '256700000001'],
    ['(00256) 414 123456', '256414123456'],
    ['0025677212345', null],
    ['002567721234567', null],
    ['00255772123456', null],
    ['000256772123456', null],
    ['', null],
    ['077212345', null],
    ['07721234567', null],
    ['672123456', null],
    ['255772123456', null],
    ['2567721234567', null],
    ['abc', null],
    [`0772123456${' '.repeat(23)}`, null],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} -> ${expected}`, () => assert.equal(normalizePhone(input), expected));
  }
  test('a result is always 256 and nine digits, and normalising it again changes nothing', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (input) => {
        const out = normalizePhone(input);
        if (out === null) return;
        assert.match(out, /^256\d{9}$/);
        assert.equal(normalizePhone(out), out);
      }),
    );
  });
});

describe('networkOf', () => {
  const cases: [string, 'momo' | 'airtel' | null][] = [
    ['256760000000', 'momo'],
    ['256770000000', 'momo'],
    ['256780000000', 'momo'],
    ['256790000000', 'momo'],
    ['256700000000', 'airtel'],
    ['256740000000', 'airtel'],
    ['256750000000', 'airtel'],
    ['256710000000', null],
    ['256720000000', null],
    ['256730000000', null],
    ['256312123456', null],
  ];
  for (const [msisdn, network] of cases) {
    test(`${msisdn} -> ${network}`, () => assert.equal(networkOf(msisdn), network));
  }
});

describe('isMobileMoneyNumber', () => {
  // Only numbers a prompt can reach: MTN and Airtel mobiles. A buyer's contact number may be any
  // of these.
  const cases: [string, boolean][] = [
    ['256772123456', true],
    ['256762123456', true],
    ['256782123456', true],
    ['256792123456', true],
    ['256702123456', true],
    ['256742123456', true],
    ['256752123456', true],
    ['256414123456', false],
    ['256312123456', false],
    ['256392123456', false],
    ['256712345678', false],
    ['256722123456', false],
    ['256732123456', false],
  ];
  for (const [msisdn, ok] of cases) {
    test(`${msisdn} -> ${ok}`, () => assert.equal(isMobileMoneyNumber(msisdn), ok));
  }
  test('00256, +256, 256 and 0 forms of one number are the same number on the same network', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('70', '74', '75', '76', '77', '78', '79'),
        fc.stringMatching(/^\d{7}$/),
        (p, rest) => {
          const forms = [
            `0${p}${rest}`,
            `${p}${rest}`,
            `256${p}${rest}`,
            `+256 ${p}${rest}`,
            `00256 ${p} ${rest}`,
          ];
          const out = forms.map((form) => normalizePhone(form));
          assert.ok(
            out.every((o) => o === `256${p}${rest}`),
            JSON.stringify(out),
          );
          assert.ok(isMobileMoneyNumber(out[0]!));
        },
      ),
    );
  });
});

describe('isEmail', () => {
  const cases: [string, boolean][] = [
    ['name@example.com', true],
    ['a.b+c@mail.example.co.ug', true],
    ['name@example', false],
    ['name@.example.com', false],
    ['name example@example.com', false],
    ['@example.com', false],
    ['name@@example.com', false],
    [`${'a'.repeat(243)}@example.com`, false],
    [`${'a'.repeat(242)}@example.com`, true],
  ];
  for (const [value, ok] of cases) {
    test(`${JSON.stringify(value.length > 40 ? `${value.length} characters` : value)} -> ${ok}`, () =>
      assert.equal(isEmail(value), ok));
  }
});
