// Sign-in: email (any case, trimmed) and password; wrong password and unknown email answer the
// same; every attempt counts against a per-account and a per-IP limit, refused with the wait.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { changeMembership } from '../../src/members/members.ts';
import { signIn, type SignInResult } from '../../src/members/sign-in.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { join, makeOrg, PASSWORD, uniqueEmail, uniqueIp } from './members-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness();
});
after(() => h.close());

const attempt = (email: string, password: string, ip = uniqueIp()) =>
  signIn(h.service.ctx, { email, password, ip });

function assertRateLimited(result: SignInResult, maxSeconds: number) {
  assert.equal(result.ok, false);
  assert.equal(!result.ok && result.reason, 'rate_limited', JSON.stringify(result));
  const seconds = !result.ok && result.reason === 'rate_limited' ? result.retryAfterSeconds : 0;
  assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= maxSeconds, `retry after ${seconds}`);
}

describe('signIn', () => {
  test('the right password signs in to the oldest membership, email in any case and spacing', async () => {
    const first = await makeOrg(h);
    const second = await makeOrg(h);
    const email = uniqueEmail();
    const member = await join(h, first.id, { email, role: 'viewer' });
    h.clock.advance(1000);
    await join(h, second.id, { email, role: 'owner' });
    const result = await attempt(`  ${email.toUpperCase()} `, PASSWORD);
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.member.id, member.id);
    assert.equal(result.organizationId, first.id);
  });

  test('a wrong password and an unknown email get the same answer', async () => {
    const org = await makeOrg(h);
    const email = uniqueEmail();
    await join(h, org.id, { email });
    assert.deepEqual(await attempt(email, 'not the password'), { ok: false, reason: 'invalid' });
    assert.deepEqual(await attempt(email, ''), { ok: false, reason: 'invalid' });
    assert.deepEqual(await attempt(uniqueEmail('nobody'), PASSWORD), { ok: false, reason: 'invalid' });
    const huge = `${uniqueEmail('long')}${'x'.repeat(5000)}.example.org`;
    assert.deepEqual(await attempt(huge, PASSWORD), { ok: false, reason: 'invalid' });
  });

  test('a member with no membership left cannot sign in', async () => {
    const org = await makeOrg(h);
    const email = uniqueEmail();
    const member = await join(h, org.id, { email, role: 'viewer' });
    await join(h, org.id, { role: 'owner' });
    assert.ok((await attempt(email, PASSWORD)).ok);
    assert.ok(
      (
        await changeMembership(h.service.ctx.database, {
          organizationId: org.id,
          memberId: member.id,
          role: null,
        })
      ).ok,
    );
    assert.deepEqual(await attempt(email, PASSWORD), { ok: false, reason: 'invalid' });
  });

  test('per account: after 5 attempts from anywhere, even the right password is refused with the wait', async () => {
    const { burst, rate } = h.config.rateLimits.signInAccount;
    assert.equal(burst, 5);
    const org = await makeOrg(h);
    const email = uniqueEmail();
    await join(h, org.id, { email });
    for (let i = 0; i < burst; i++) {
      assert.deepEqual(await attempt(email.toUpperCase(), `wrong password ${i}`), {
        ok: false,
        reason: 'invalid',
      });
    }
    assertRateLimited(await attempt(email, PASSWORD), Math.ceil(1 / rate));
    // another account is not held back by this one
    const neighbour = uniqueEmail();
    await join(h, org.id, { email: neighbour });
    assert.ok((await attempt(neighbour, PASSWORD)).ok);
  });

  test('every attempt counts, successful ones too', async () => {
    const { burst } = h.config.rateLimits.signInAccount;
    const org = await makeOrg(h);
    const email = uniqueEmail();
    await join(h, org.id, { email });
    for (let i = 0; i < burst; i++) assert.ok((await attempt(email, PASSWORD)).ok, `attempt ${i + 1}`);
    assertRateLimited(await attempt(email, PASSWORD), 180);
  });

  test('per IP: after 20 attempts from one address, every account is refused from it, not from others', async () => {
    const { burst, rate } = h.config.rateLimits.signInIp;
    assert.equal(burst, 20);
    const org = await makeOrg(h);
    const email = uniqueEmail();
    await join(h, org.id, { email });
    const ip = uniqueIp();
    for (let i = 0; i < burst; i++) {
      assert.deepEqual(await attempt(uniqueEmail('guess'), PASSWORD, ip), { ok: false, reason: 'invalid' });
    }
    assertRateLimited(await attempt(email, PASSWORD, ip), Math.ceil(1 / rate));
    assert.ok((await attempt(email, PASSWORD, uniqueIp())).ok, 'the account itself is not held back');
  });
});
