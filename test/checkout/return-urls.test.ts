import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  embedOriginProblem,
  returnUrlProblem,
  storedReturnUrl,
  successUrlFor,
} from '../../src/checkout/return-urls.ts';

const SHOP = 'https://shop.example.org';
const ID = 'cs_4fQm2ZLx9TbK1wPq7sVd3nHa';

/** A URL on the shop origin exactly `length` characters long. */
function urlOfLength(length: number, origin = SHOP): string {
  const prefix = `${origin}/`;
  return prefix + 'a'.repeat(length - prefix.length);
}

/** The raw query pairs of a URL string (as written, not re-encoded), fragment excluded. */
function rawPairs(url: string): string[] {
  const beforeHash = url.split('#')[0]!;
  const q = beforeHash.indexOf('?');
  return q < 0 ? [] : beforeHash.slice(q + 1).split('&');
}

function withoutSessionId(pairs: string[]): string[] {
  return pairs.filter((p) => p !== '' && p.split('=')[0] !== 'session_id');
}

function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

describe('returnUrlProblem', () => {
  const registered = [SHOP, 'http://localhost:5173', 'http://127.0.0.1:8080'];

  test('accepts absolute https URLs on a registered origin and registered local dev origins (table)', () => {
    const accepted: string[] = [
      `${SHOP}/thanks`,
      SHOP,
      `${SHOP}/`,
      `${SHOP}/thanks?session_id={CHECKOUT_SESSION_ID}`,
      `${SHOP}/thanks/%7BCHECKOUT_SESSION_ID%7D#done`,
      `${SHOP}:443/thanks`, // explicit default port is the same origin
      'https://SHOP.Example.ORG/thanks', // hosts are case-insensitive
      'HTTPS://shop.example.org/thanks', // so are schemes
      'http://localhost:5173/done',
      'http://127.0.0.1:8080/done?x=1#y',
      urlOfLength(2048),
    ];
    for (const value of accepted) {
      assert.equal(returnUrlProblem(value, registered), null, value);
    }
  });

  test('refuses what breaks a rule, each with a message (table)', () => {
    const refused: Array<[string, string[], string]> = [
      ['', registered, 'empty string'],
      [urlOfLength(2049), registered, '2049 characters'],
      [
        'http://shop.example.org/thanks',
        [...registered, 'http://shop.example.org'],
        'http, even if registered',
      ],
      ['http://localhost/done', [...registered, 'http://localhost'], 'http://localhost without a port'],
      ['http://127.0.0.1/done', [...registered, 'http://127.0.0.1'], 'http://127.0.0.1 without a port'],
      [
        'http://localhost:80/done',
        [...registered, 'http://localhost'],
        'http://localhost on the default port',
      ],
      ['http://localhost:5174/done', registered, 'local port not registered'],
      ['http://127.0.0.1:5173/done', registered, '127.0.0.1 registered only on another port'],
      ['http://localhost:8080/done', registered, 'localhost when only 127.0.0.1:8080 is registered'],
      ['https://localhost:5173/done', registered, 'https where http://localhost:5173 is registered'],
      ['https://www.shop.example.org/thanks', registered, 'www is another origin'],
      ['https://example.org/thanks', [...registered, 'https://www.example.org'], 'non-www is another origin'],
      ['https://shop.example.org:8443/thanks', registered, 'another port'],
      ['https://shop.example.org.evil.test/thanks', registered, 'suffix host'],
      ['https://evil.test/?next=https://shop.example.org', registered, 'registered origin only in the query'],
      ['https://user:pw@shop.example.org/thanks', registered, 'credentials'],
      ['https://user@shop.example.org/thanks', registered, 'user name'],
      ['https://:pw@shop.example.org/thanks', registered, 'password'],
      ['/thanks', registered, 'relative path'],
      ['thanks', registered, 'relative name'],
      ['//shop.example.org/thanks', registered, 'scheme-relative'],
      ['?session_id=1', registered, 'query only'],
      ['shop.example.org/thanks', registered, 'no scheme'],
      ['ftp://shop.example.org/thanks', [...registered, 'ftp://shop.example.org'], 'ftp'],
      ['javascript:alert(1)', registered, 'javascript:'],
      // Forms a browser forgives but other parsers read differently; the URL is stored as given.
      ['http://localhost:5173\\@evil.test/', registered, 'backslash: host is evil.test to RFC 3986 parsers'],
      [`${SHOP}\\@evil.test/thanks`, registered, 'backslash before @'],
      ['https:\\\\shop.example.org/thanks', registered, 'backslashes for slashes'],
      ['https:shop.example.org/thanks', registered, 'no slashes after the scheme'],
      ['https:/shop.example.org/thanks', registered, 'one slash after the scheme'],
      ['https:///shop.example.org/thanks', registered, 'three slashes: empty authority'],
      [` ${SHOP}/thanks`, registered, 'leading space'],
      [`${SHOP}/thanks `, registered, 'trailing space'],
      [`${SHOP}/tha nks`, registered, 'inner space'],
      [`${SHOP}/thanks`, [], 'nothing registered'],
    ];
    for (const [value, allowed, why] of refused) {
      const problem = returnUrlProblem(value, allowed);
      assert.equal(typeof problem, 'string', `${why}: ${value}`);
      assert.ok(problem!.length > 0, why);
    }
  });

  test('says why: length, scheme, credentials and origin have their own messages', () => {
    assert.match(returnUrlProblem(urlOfLength(2049), [SHOP])!, /2048/);
    assert.match(returnUrlProblem('', [SHOP])!, /empty/);
    assert.match(returnUrlProblem('http://shop.example.org/x', ['http://shop.example.org'])!, /https/);
    assert.match(returnUrlProblem('https://u:p@shop.example.org/x', [SHOP])!, /credentials/);
    assert.match(returnUrlProblem('https://www.shop.example.org/x', [SHOP])!, /www\.shop\.example\.org/);
  });
});

describe('successUrlFor', () => {
  test('replaces every placeholder, in either form and any case of the percent-encoding (table)', () => {
    const table: Array<[string, string]> = [
      [`${SHOP}/thanks/{CHECKOUT_SESSION_ID}`, `${SHOP}/thanks/${ID}`],
      [`${SHOP}/thanks?s={CHECKOUT_SESSION_ID}`, `${SHOP}/thanks?s=${ID}`],
      [`${SHOP}/thanks#{CHECKOUT_SESSION_ID}`, `${SHOP}/thanks#${ID}`],
      [`${SHOP}/thanks/%7BCHECKOUT_SESSION_ID%7D`, `${SHOP}/thanks/${ID}`],
      [`${SHOP}/thanks?s=%7bCHECKOUT_SESSION_ID%7d`, `${SHOP}/thanks?s=${ID}`],
      [`${SHOP}/thanks?s=%7BCHECKOUT_SESSION_ID%7d`, `${SHOP}/thanks?s=${ID}`],
      [
        `${SHOP}/p/{CHECKOUT_SESSION_ID}/x?a={CHECKOUT_SESSION_ID}&b=%7BCHECKOUT_SESSION_ID%7D#f-%7bCHECKOUT_SESSION_ID%7d-{CHECKOUT_SESSION_ID}`,
        `${SHOP}/p/${ID}/x?a=${ID}&b=${ID}#f-${ID}-${ID}`,
      ],
      [`${SHOP}/{CHECKOUT_SESSION_ID}{CHECKOUT_SESSION_ID}`, `${SHOP}/${ID}${ID}`],
    ];
    for (const [template, expected] of table) {
      assert.equal(successUrlFor(template, ID), expected, template);
    }
  });

  test('adds no session_id parameter when a placeholder is present anywhere', () => {
    for (const template of [
      `${SHOP}/thanks/{CHECKOUT_SESSION_ID}`,
      `${SHOP}/thanks?a=1#%7BCHECKOUT_SESSION_ID%7D`,
      `${SHOP}/thanks?ref=%7bCHECKOUT_SESSION_ID%7d`,
    ]) {
      const out = successUrlFor(template, ID);
      assert.equal(new URL(out).searchParams.has('session_id'), false, template);
      assert.equal(occurrences(out, ID), 1, template);
    }
  });

  test('without a placeholder appends session_id, keeping the other parameters and the fragment (table)', () => {
    const table: Array<[string, string]> = [
      [`${SHOP}/thanks`, `${SHOP}/thanks?session_id=${ID}`],
      [`${SHOP}/thanks?`, `${SHOP}/thanks?session_id=${ID}`],
      [`${SHOP}/thanks?a=1&b=2`, `${SHOP}/thanks?a=1&b=2&session_id=${ID}`],
      [`${SHOP}/thanks#done`, `${SHOP}/thanks?session_id=${ID}#done`],
      [`${SHOP}/thanks?a=1#done`, `${SHOP}/thanks?a=1&session_id=${ID}#done`],
      [`${SHOP}/t?q=x%20y&r=%7E&flag`, `${SHOP}/t?q=x%20y&r=%7E&flag&session_id=${ID}`],
      // a session_id inside the fragment belongs to the page, not to the query
      [`${SHOP}/t?a=1#/route?session_id=old`, `${SHOP}/t?a=1&session_id=${ID}#/route?session_id=old`],
      // look-alike names are other parameters
      [
        `${SHOP}/t?session_idx=1&my_session_id=2&SESSION_ID=3`,
        `${SHOP}/t?session_idx=1&my_session_id=2&SESSION_ID=3&session_id=${ID}`,
      ],
    ];
    for (const [template, expected] of table) {
      assert.equal(successUrlFor(template, ID), expected, template);
    }
  });

  test('overwrites an existing session_id wherever it stands, and every repeat of it (table)', () => {
    const table: Array<[string, string[], string]> = [
      [`${SHOP}/t?session_id=old&a=1&b=2#frag`, ['a=1', 'b=2'], '#frag'],
      [`${SHOP}/t?a=1&session_id=old&b=2#frag`, ['a=1', 'b=2'], '#frag'],
      [`${SHOP}/t?a=1&b=2&session_id=old#frag`, ['a=1', 'b=2'], '#frag'],
      [`${SHOP}/t?session_id=1&a=1&session_id=2&b=2&session_id=3`, ['a=1', 'b=2'], ''],
      [`${SHOP}/t?session_id&a=1`, ['a=1'], ''],
      [`${SHOP}/t?session_id=`, [], ''],
    ];
    for (const [template, others, hash] of table) {
      const out = successUrlFor(template, ID);
      const url = new URL(out);
      assert.deepEqual(url.searchParams.getAll('session_id'), [ID], template);
      assert.deepEqual(withoutSessionId(rawPairs(out)), others, template);
      assert.equal(url.hash, hash, template);
      assert.equal(url.pathname, '/t', template);
      assert.equal(url.origin, SHOP, template);
      assert.doesNotMatch(out, /session_id=(old|1|2|3)?(&|#|$)/, template);
    }
  });

  // Generators for templates on the shop origin built from safe pieces (no '%', '{', '_' or 'cs'),
  // so the only session id text in the output is the one the function put there.
  const word = fc.string({
    unit: fc.constantFrom(...'abdefghijklmnopqrtuvwxyz0123456789-.~'),
    minLength: 1,
    maxLength: 8,
  });
  const sessionId = fc
    .string({
      unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'),
      minLength: 16,
      maxLength: 40,
    })
    .map((s) => `cs_${s}`);
  const pair = fc.oneof(
    fc.tuple(word, word).map(([k, v]) => `${k}=${v}`),
    word.map((v) => `session_id=${v}`),
    fc.constant('session_id'),
    word,
  );
  const query = fc.option(fc.array(pair, { maxLength: 6 }), { nil: undefined });
  const fragment = fc.option(fc.array(word, { maxLength: 3 }), { nil: undefined });
  const path = fc.array(word, { maxLength: 4 });

  test('property: without a placeholder the output has the id exactly once, as the one session_id', () => {
    fc.assert(
      fc.property(path, query, fragment, sessionId, (segments, pairs, frag, id) => {
        const template =
          `${SHOP}/${segments.join('/')}` +
          (pairs ? `?${pairs.join('&')}` : '') +
          (frag ? `#${frag.join('/')}` : '');
        const out = successUrlFor(template, id);
        const url = new URL(out);
        assert.deepEqual(url.searchParams.getAll('session_id'), [id]);
        assert.equal(occurrences(out, id), 1);
        assert.deepEqual(withoutSessionId(rawPairs(out)), withoutSessionId(pairs ?? []));
        assert.equal(url.hash, frag && frag.length > 0 ? `#${frag.join('/')}` : '');
        assert.equal(url.pathname, new URL(template).pathname);
        assert.equal(url.origin, SHOP);
      }),
      { numRuns: 500 },
    );
  });

  const placeholder = fc.constantFrom(
    '{CHECKOUT_SESSION_ID}',
    '%7BCHECKOUT_SESSION_ID%7D',
    '%7bCHECKOUT_SESSION_ID%7d',
    '%7BCHECKOUT_SESSION_ID%7d',
    '%7bCHECKOUT_SESSION_ID%7D',
  );
  // A piece of a template: plain text or a placeholder, placed in path, query or fragment.
  const piece = fc.oneof(word, placeholder);
  const part = fc.array(piece, { minLength: 1, maxLength: 4 }).map((ps) => ps.join(''));

  test('property: every placeholder becomes the id and no placeholder text remains', () => {
    fc.assert(
      fc.property(
        fc.array(part, { maxLength: 3 }),
        fc.array(part, { maxLength: 3 }),
        fc.option(part, { nil: undefined }),
        sessionId,
        (segments, values, frag, id) => {
          const template =
            `${SHOP}/${segments.join('/')}` +
            (values.length > 0 ? `?${values.map((v, i) => `k${i}=${v}`).join('&')}` : '') +
            (frag !== undefined ? `#${frag}` : '');
          const count = (template.match(/\{CHECKOUT_SESSION_ID\}|%7BCHECKOUT_SESSION_ID%7D/gi) ?? []).length;
          fc.pre(count > 0);
          const out = successUrlFor(template, id);
          assert.doesNotMatch(out, /CHECKOUT_SESSION_ID/i);
          assert.equal(occurrences(out, id), count);
          assert.equal(new URL(out).searchParams.has('session_id'), false);
          // Nothing else changed: putting the placeholders back gives the template modulo their form.
          const normalise = (s: string) =>
            s.replace(/\{CHECKOUT_SESSION_ID\}|%7BCHECKOUT_SESSION_ID%7D/gi, '\u0000');
          assert.equal(out.split(id).join('\u0000'), normalise(template));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('storedReturnUrl', () => {
  // Printable ASCII only: what Node lets into a Location header, and what a browser would request.
  const ASCII = /^[\x21-\x7e]+$/;

  test('percent-encodes path, query and fragment as UTF-8 and writes an IDN host in punycode (table)', () => {
    const table: Array<[string, string]> = [
      [`${SHOP}/€`, `${SHOP}/%E2%82%AC`],
      [`${SHOP}/caf\u00e9?q=\u20ac`, `${SHOP}/caf%C3%A9?q=%E2%82%AC`],
      [
        `${SHOP}/p?a=\u00fc&b=\u{1F3C3}#r\u00e9sum\u00e9`,
        `${SHOP}/p?a=%C3%BC&b=%F0%9F%8F%83#r%C3%A9sum%C3%A9`,
      ],
      ['https://b\u00fccher.example/danke', 'https://xn--bcher-kva.example/danke'],
      ['https://B\u00dcCHER.example:443/x', 'https://xn--bcher-kva.example/x'],
      [SHOP, `${SHOP}/`],
      ['http://localhost:5173/\u00e9', 'http://localhost:5173/%C3%A9'],
    ];
    for (const [given, stored] of table) {
      assert.equal(storedReturnUrl(given), stored, given);
      assert.match(stored, ASCII);
      assert.equal(storedReturnUrl(stored), stored, `stable: ${stored}`);
    }
  });

  test('leaves an already encoded URL as it is', () => {
    for (const value of [
      `${SHOP}/thanks?a=1&b=2#done`,
      `${SHOP}/caf%C3%A9?q=%E2%82%AC`,
      `${SHOP}/t?q=x%20y&r=%7E&flag`,
      `${SHOP}/cart/%7BCHECKOUT_SESSION_ID%7D`,
    ]) {
      assert.equal(storedReturnUrl(value), value);
    }
  });

  test('after successUrlFor, both placeholder forms still become the session id, beside non-ASCII text', () => {
    const table: Array<[string, string]> = [
      [`${SHOP}/caf\u00e9/{CHECKOUT_SESSION_ID}`, `${SHOP}/caf%C3%A9/${ID}`],
      [`${SHOP}/caf\u00e9?s={CHECKOUT_SESSION_ID}&q=\u20ac`, `${SHOP}/caf%C3%A9?s=${ID}&q=%E2%82%AC`],
      [`${SHOP}/\u20ac/%7BCHECKOUT_SESSION_ID%7D#\u00e9`, `${SHOP}/%E2%82%AC/${ID}#%C3%A9`],
      [`${SHOP}/caf\u00e9?q=\u20ac`, `${SHOP}/caf%C3%A9?q=%E2%82%AC&session_id=${ID}`],
      [`${SHOP}/caf\u00e9?session_id=\u00e9&q=1#\u00e9`, `${SHOP}/caf%C3%A9?q=1&session_id=${ID}#%C3%A9`],
    ];
    for (const [template, expected] of table) {
      assert.equal(storedReturnUrl(successUrlFor(template, ID)), expected, template);
    }
  });

  // Text from anywhere in Unicode, but none of the characters that end a URL part or make a
  // placeholder, and nothing returnUrlProblem refuses (white space, controls).
  const text = fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 6 })
    .filter((s) => !/[\s\p{Cc}\p{Cf}/?#%{}\\]/u.test(s));
  const placeholder = fc.constantFrom(
    '{CHECKOUT_SESSION_ID}',
    '%7BCHECKOUT_SESSION_ID%7D',
    '%7bCHECKOUT_SESSION_ID%7d',
  );
  const part = fc
    .array(fc.oneof(text, text, placeholder), { minLength: 1, maxLength: 4 })
    .map((ps) => ps.join(''));

  test('property: a return URL that passes the rules is stored as ASCII on its origin, with every placeholder replaced', () => {
    fc.assert(
      fc.property(
        fc.array(part, { maxLength: 3 }),
        fc.array(part, { maxLength: 3 }),
        fc.option(part, { nil: undefined }),
        (segments, values, frag) => {
          const template =
            `${SHOP}/${segments.join('/')}` +
            (values.length > 0 ? `?${values.map((v, i) => `k${i}=${v}`).join('&')}` : '') +
            (frag !== undefined ? `#${frag}` : '');
          fc.pre(returnUrlProblem(template, [SHOP]) === null);
          const count = (template.match(/\{CHECKOUT_SESSION_ID\}|%7BCHECKOUT_SESSION_ID%7D/gi) ?? []).length;
          const stored = storedReturnUrl(successUrlFor(template, ID));
          assert.match(stored, ASCII, stored);
          assert.equal(new URL(stored).origin, SHOP);
          assert.doesNotMatch(stored, /CHECKOUT_SESSION_ID/i);
          assert.equal(occurrences(stored, ID), Math.max(count, 1));
          assert.equal(new URL(stored).searchParams.has('session_id'), count === 0);
          assert.equal(storedReturnUrl(stored), stored, 'stable');
          // The cancel URL, stored as given but encoded, is ASCII on the same origin too.
          const cancel = storedReturnUrl(template);
          assert.match(cancel, ASCII);
          assert.equal(new URL(cancel).origin, SHOP);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('embedOriginProblem', () => {
  test('accepts https origins with or without a port, and local dev origins with a port (table)', () => {
    for (const value of [
      SHOP,
      'https://shop.example.org:8443',
      'https://shop.example.org:443',
      'https://SHOP.example.org',
      'http://localhost:5173',
      'http://127.0.0.1:3000',
    ]) {
      assert.equal(embedOriginProblem(value), null, value);
    }
  });

  test('refuses paths, trailing slashes, queries, http off localhost, credentials and non-URLs (table)', () => {
    for (const value of [
      '',
      `${SHOP}/`,
      `${SHOP}/checkout`,
      `${SHOP}?x=1`,
      `${SHOP}#x`,
      'http://shop.example.org',
      'http://localhost',
      'http://localhost/',
      'http://127.0.0.1',
      'http://localhost:5173/',
      'shop.example.org',
      'not a url',
      'ftp://shop.example.org',
      'https://user@shop.example.org',
      'https://user:pw@shop.example.org',
      ` ${SHOP}`,
      `${SHOP} `,
      'null',
      '*',
    ]) {
      const problem = embedOriginProblem(value);
      assert.equal(typeof problem, 'string', value);
      assert.match(problem!, /origin/, value);
    }
  });
});
