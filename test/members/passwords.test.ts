// Password rules and scrypt hashing: what a new password must be, the stored format, and that
// verification accepts only the password the hash was made from.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { scryptSync } from 'node:crypto';
import {
  hashPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  passwordProblem,
  verifyNoPassword,
  verifyPassword,
} from '../../src/members/passwords.ts';

describe('passwordProblem', () => {
  const cases: Array<[string, string, RegExp | null]> = [
    ['nine characters', 'a'.repeat(PASSWORD_MIN_LENGTH - 1), /at least 10 characters/],
    ['empty', '', /at least 10 characters/],
    ['exactly the minimum', 'a'.repeat(PASSWORD_MIN_LENGTH), null],
    ['a passphrase with spaces', 'correct horse battery staple', null],
    ['exactly the maximum', 'b'.repeat(PASSWORD_MAX_LENGTH), null],
    ['one over the maximum', 'b'.repeat(PASSWORD_MAX_LENGTH + 1), /at most 200 characters/],
    ['only spaces', ' '.repeat(12), /only spaces/],
    ['a control character', 'abcdefghij\u0007', /control characters/],
    ['a lone surrogate', 'abcdefghij\ud800', /valid text/],
    // ten emoji are twenty UTF-16 units but ten characters: counted as ten
    ['ten emoji', '🏃'.repeat(10), null],
    ['nine emoji', '🏃'.repeat(9), /at least 10 characters/],
  ];
  for (const [name, password, problem] of cases) {
    test(`${name}: ${problem ? 'refused' : 'accepted'}`, () => {
      const answer = passwordProblem(password);
      if (problem === null) assert.equal(answer, null);
      else assert.match(answer ?? '', problem);
    });
  }
});

describe('hashPassword and verifyPassword', () => {
  test('stores scrypt N=2^15, r=8, p=1 with a 16-byte salt and a 32-byte key', async () => {
    const stored = await hashPassword('correct horse battery');
    const match = /^scrypt\$15\$8\$1\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
    assert.ok(match, stored);
    assert.equal(Buffer.from(match[1]!, 'base64url').length, 16);
    assert.equal(Buffer.from(match[2]!, 'base64url').length, 32);
    // the key is really scrypt's over that salt
    const key = scryptSync('correct horse battery', Buffer.from(match[1]!, 'base64url'), 32, {
      N: 2 ** 15,
      r: 8,
      p: 1,
      maxmem: 64 * 1024 * 1024,
    });
    assert.equal(key.toString('base64url'), match[2]);
  });

  test('accepts the password and refuses any other', async () => {
    const stored = await hashPassword('correct horse battery');
    assert.equal(await verifyPassword('correct horse battery', stored), true);
    assert.equal(await verifyPassword('correct horse batterY', stored), false);
    assert.equal(await verifyPassword('', stored), false);
    assert.equal(await verifyPassword('correct horse battery ', stored), false);
  });

  test('salts every hash: the same password twice gives two different strings', async () => {
    const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    assert.notEqual(a, b);
    assert.equal(await verifyPassword('same password', a), true);
    assert.equal(await verifyPassword('same password', b), true);
  });

  test('compares the password as Unicode text in one normal form', async () => {
    const composed = 'caf\u00e9 au lait!';
    const decomposed = 'cafe\u0301 au lait!';
    const stored = await hashPassword(composed);
    assert.equal(await verifyPassword(decomposed, stored), true);
  });

  test('reads the cost from the stored string, so hashes made with other parameters still verify', async () => {
    const salt = Buffer.from('0123456789abcdef');
    const key = scryptSync('older password', salt, 32, { N: 2 ** 14, r: 8, p: 1 });
    const stored = `scrypt$14$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
    assert.equal(await verifyPassword('older password', stored), true);
    assert.equal(await verifyPassword('newer password', stored), false);
  });

  test('a damaged or foreign stored value never verifies', async () => {
    const good = await hashPassword('correct horse battery');
    const parts = good.split('$');
    const damaged = [
      '',
      'plain-text-password',
      good.replace('scrypt$', 'bcrypt$'),
      [...parts.slice(0, 1), '40', ...parts.slice(2)].join('$'), // absurd cost
      [...parts.slice(0, 1), '3', ...parts.slice(2)].join('$'), // too cheap to be ours
      [...parts.slice(0, 5), 'short'].join('$'),
      `${good}$extra`,
    ];
    for (const stored of damaged) {
      assert.equal(await verifyPassword('correct horse battery', stored), false, stored);
    }
  });

  test('verifyNoPassword spends the work and is always false', async () => {
    assert.equal(await verifyNoPassword('correct horse battery'), false);
    assert.equal(await verifyNoPassword(''), false);
  });
});
