// Pure parts of the hosted checkout: HTML escaping, money and phone formatting, field ids, form
// reading, payment checks, the security headers and the asset helpers.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { chooseEncoding } from '../../src/platform/static-assets.ts';
import { checkPayment, fieldId, parseDonation, parseUrlEncoded } from '../../src/site/checkout-form.ts';
import { formatCountdown, formatMoney, maskPhone } from '../../src/site/format.ts';
import { attr, escapeHtml, html, raw } from '../../src/platform/html.ts';
import { en } from '../../src/site/messages/en.ts';
import { paymentNumberProblem, phoneWordsOf, wrongNetworkMessage } from '../../src/site/payment-phone.ts';
import { paymentPhoneProblem } from '../../web/checkout-page/phone-field.ts';
import { METHOD_NAMES } from '../../src/site/method-names.ts';
import { offerOf } from '../../src/site/offer-words.ts';
import { contentSecurityPolicy, framePolicyFor } from '../../src/site/security-headers.ts';

// The networks the payment methods' catalogue takes, as the English pages name them.
const UG = offerOf({ event: { currency: 'UGX' }, organization: { optedInMethods: [] } });
const words = phoneWordsOf(
  en.phone,
  {
    networks: 'MTN or Airtel',
    a: 'an',
    mobile: 'a Ugandan mobile number',
    example: '0772 123456',
  },
  (key) => METHOD_NAMES[key]!,
);
const NOT_MOBILE_MONEY_MESSAGE = words.notMobileMoney;
const OWN_NUMBER_NOT_MOBILE_MONEY_MESSAGE = words.ownNotMobileMoney;
const PHONE_MESSAGE = words.invalid;

describe('html', () => {
  test('escapes the five special characters and nothing else', () => {
    assert.equal(
      escapeHtml(`<a href="x" title='y'>&amp;</a>`),
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;',
    );
    fc.assert(
      fc.property(fc.string(), (s) => {
        const out = escapeHtml(s);
        assert.doesNotMatch(out, /[<>"']/);
        assert.equal(
          out.replace(
            /&(lt|gt|quot|#39|amp);/g,
            (_m, e: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[e]!,
          ),
          s,
        );
      }),
    );
  });

  test('the template escapes every interpolation except html fragments; arrays are joined', () => {
    // Under another name, so that the formatter leaves these templates exactly as written.
    const t = html;
    const name = '<b>x</b>';
    assert.equal(t`<p>${name}</p>`.value, '<p>&lt;b&gt;x&lt;/b&gt;</p>');
    assert.equal(t`<p>${t`<i>${name}</i>`}</p>`.value, '<p><i>&lt;b&gt;x&lt;/b&gt;</i></p>');
    assert.equal(
      t`<ul>${['a', '<'].map((s) => t`<li>${s}</li>`)}</ul>`.value,
      '<ul><li>a</li><li>&lt;</li></ul>',
    );
    assert.equal(t`${null}${undefined}${false}${0}`.value, '0');
    assert.equal(t`${raw('<br>')}`.value, '<br>');
    assert.equal(
      `<input${attr('value', '"x"')}${attr('checked', true)}${attr('hidden', false)}>`,
      '<input value="&quot;x&quot;" checked>',
    );
  });
});

describe('formatting', () => {
  test('money in minor units with the currency exponent and thousands separators', () => {
    assert.equal(formatMoney(30000, 'UGX'), 'UGX\u00a030,000');
    assert.equal(formatMoney(1234567, 'UGX'), 'UGX\u00a01,234,567');
    assert.equal(formatMoney(0, 'UGX'), 'UGX\u00a00');
    assert.equal(formatMoney(1250, 'USD'), 'USD\u00a012.50');
  });

  test('phones are masked, countdowns are m:ss', () => {
    assert.equal(maskPhone('256770000001'), '0770 ••• 001');
    assert.equal(formatCountdown(754), '12:34');
    assert.equal(formatCountdown(-3), '0:00');
  });
});

describe('form', () => {
  test('field ids are stable, readable and unique per path', () => {
    assert.equal(fieldId('items[0].participant_name'), 'f-items-0-participant_name');
    assert.equal(fieldId('items[__I__].answers.tshirt'), 'f-items-__I__-answers-tshirt');
    assert.equal(fieldId('buyer.email'), 'f-buyer-email');
    assert.equal(fieldId('items[1].answers.size (EU)'), 'f-items-1-answers-size_20_28EU_29');
  });

  test('urlencoded bodies: first value wins, no prototype keys', () => {
    const body = parseUrlEncoded('a=1&a=2&__proto__=x&b=%3Cc%3E');
    assert.equal(body.a, '1');
    assert.equal(body.b, '<c>');
    assert.equal(Object.getPrototypeOf(body), null);
  });

  test('donations are whole numbers, with separators allowed', () => {
    assert.equal(parseDonation('', 'UGX'), 0);
    assert.equal(parseDonation('5,000', 'UGX'), 5000);
    assert.equal(parseDonation('5 000', 'UGX'), 5000);
    assert.equal(parseDonation('5.5', 'UGX'), null);
    assert.equal(parseDonation('-1', 'UGX'), null);
    // whole shillings, as the field's label asks: KES amounts are cents
    assert.equal(parseDonation('1,000', 'KES'), 100_000);
  });

  test('payment: method required, Ugandan number, network must match a known prefix', () => {
    assert.deepEqual(checkPayment(UG, 'momo', '0770000001', '').choice, {
      method: 'momo',
      phone: '0770000001',
    });
    assert.deepEqual(checkPayment(UG, 'airtel', '', '0752123456').choice, {
      method: 'airtel',
      phone: '0752123456',
    });
    assert.deepEqual(
      checkPayment(UG, '', '0770000001', '').errors.map((e) => e.field),
      ['payment_method'],
    );
    assert.deepEqual(
      checkPayment(UG, 'momo', '123', '').errors.map((e) => e.field),
      ['payment_phone'],
    );
    assert.match(checkPayment(UG, 'momo', '0700000001', '').errors[0]!.message, /Airtel Money number/);
    assert.deepEqual(
      checkPayment(UG, 'momo', '', '0700000001').errors.map((e) => e.field),
      ['payment_method'],
    );
    assert.deepEqual(checkPayment(UG, 'momo', '00256 770 000001', '').choice, {
      method: 'momo',
      phone: '00256 770 000001',
    });
  });

  test('payment: a number that takes no mobile money is refused, typed or the buyer’s own', () => {
    for (const phone of ['0414 123456', '+256 312 123456', '00256392123456', '0712345678', '0732123456']) {
      for (const method of ['momo', 'airtel', '']) {
        const typed = checkPayment(UG, method, phone, '0772123456');
        assert.equal(typed.choice, null, `${method} ${phone}`);
        assert.deepEqual(
          typed.errors.filter((e) => e.field === 'payment_phone'),
          [{ field: 'payment_phone', message: NOT_MOBILE_MONEY_MESSAGE }],
          `${method} ${phone}`,
        );
        // An empty payment number means the buyer's own: a landline there needs a payment number.
        const own = checkPayment(UG, method, '', phone);
        assert.equal(own.choice, null, `own ${method} ${phone}`);
        assert.deepEqual(
          own.errors.filter((e) => e.field === 'payment_phone'),
          [{ field: 'payment_phone', message: OWN_NUMBER_NOT_MOBILE_MONEY_MESSAGE }],
          `own ${method} ${phone}`,
        );
      }
    }
    assert.match(NOT_MOBILE_MONEY_MESSAGE, /cannot receive mobile money: enter an MTN or Airtel number/);
  });

  test('the page script judges the payment number as the server does', () => {
    const cases: [string, string | null, string | undefined, string | null][] = [
      ['0772123456', null, undefined, null],
      ['00256 772 123456', 'momo', undefined, null],
      ['0772123456', 'airtel', undefined, wrongNetworkMessage(UG, '256772123456', 'airtel', words)],
      ['0414123456', null, undefined, NOT_MOBILE_MONEY_MESSAGE],
      ['0712345678', 'airtel', undefined, NOT_MOBILE_MONEY_MESSAGE],
      ['12', 'momo', undefined, PHONE_MESSAGE],
      ['', 'momo', undefined, PHONE_MESSAGE],
      // empty with the buyer's own phone: that number is judged; a bad own phone is the buyer
      // field's error, not this one's
      ['', 'momo', '0772123456', null],
      ['', 'momo', '0414123456', OWN_NUMBER_NOT_MOBILE_MONEY_MESSAGE],
      ['', 'airtel', '0772123456', wrongNetworkMessage(UG, '256772123456', 'airtel', words)],
      ['', 'momo', '12', null],
    ];
    for (const [value, method, own, message] of cases) {
      assert.equal(paymentPhoneProblem(value, method, own, words, UG), message, `${value} ${method} ${own}`);
      // the server's check agrees on whether the number may be paid from
      const server = checkPayment(UG, method ?? 'momo', value, own ?? '');
      if (method && own !== '12')
        assert.equal(server.choice === null, message !== null, `${value} ${method} ${own}`);
    }
  });

  test('paymentNumberProblem: MTN and Airtel only, and the chosen network', () => {
    assert.equal(paymentNumberProblem(UG, '256772123456', null, words), null);
    assert.equal(paymentNumberProblem(UG, '256772123456', 'momo', words), null);
    assert.match(paymentNumberProblem(UG, '256772123456', 'airtel', words)!, /MTN Mobile Money number/);
    assert.equal(paymentNumberProblem(UG, '256414123456', null, words), NOT_MOBILE_MONEY_MESSAGE);
    assert.equal(paymentNumberProblem(UG, '256722123456', 'airtel', words), NOT_MOBILE_MONEY_MESSAGE);
  });

  test("the wrong-network message, shared with the page script, names the number's network", () => {
    const cases: [string, string, string | null][] = [
      ['256772123456', 'momo', null],
      [
        '256772123456',
        'airtel',
        'This is an MTN Mobile Money number: choose MTN Mobile Money or enter another number',
      ],
      ['256752123456', 'momo', 'This is an Airtel Money number: choose Airtel Money or enter another number'],
      ['256752123456', 'airtel', null],
      ['256712345678', 'momo', null],
      ['256712345678', 'airtel', null],
    ];
    for (const [msisdn, method, message] of cases) {
      assert.equal(wrongNetworkMessage(UG, msisdn, method, words), message, `${msisdn} ${method}`);
    }
  });
});

describe('security headers', () => {
  const base = {
    successUrl: 'https://shop.example.org/ok?session_id=cs_1',
    cancelUrl: 'https://shop.example.org/cart',
    embedOrigin: null,
  };
  test("redirect sessions may not be framed; forms may lead to the return URLs' origins", () => {
    const csp = contentSecurityPolicy(framePolicyFor({ ...base, uiMode: 'redirect' }));
    assert.match(csp, /frame-ancestors 'none'$/);
    assert.match(csp, /form-action 'self' https:\/\/shop\.example\.org;/);
  });
  test('embedded sessions may be framed by their embed origin only', () => {
    const csp = contentSecurityPolicy(
      framePolicyFor({
        uiMode: 'embedded',
        embedOrigin: 'http://localhost:5173',
        successUrl: null,
        cancelUrl: null,
      }),
    );
    assert.match(csp, /frame-ancestors http:\/\/localhost:5173$/);
    assert.match(csp, /form-action 'self';/);
  });
});

describe('assets', () => {
  test('encodings follow Accept-Encoding, q=0 refuses', () => {
    assert.equal(chooseEncoding('gzip, deflate, br'), 'br');
    assert.equal(chooseEncoding('gzip'), 'gzip');
    assert.equal(chooseEncoding('br;q=0, gzip'), 'gzip');
    assert.equal(chooseEncoding(undefined), null);
    assert.equal(chooseEncoding('identity'), null);
  });
});
