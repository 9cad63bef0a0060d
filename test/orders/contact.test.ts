// The buyer contact rules (orders/contact.ts) that the server and the hosted checkout's page script
// both apply: Ugandan mobile numbers, their network, and the e-mail shape.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isEmail, networkOf, normalizePhone } from '../../src/orders/contact.ts';

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
