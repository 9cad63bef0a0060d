// Password reset by a single-use emailed link (60 minutes) that ends every session, and changing
// one's own password, which ends the other sessions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { findMember } from '../../src/members/members.ts';
import {
  changePassword,
  findPasswordReset,
  passwordResetUrl,
  requestPasswordReset,
  resetPassword,
  RESET_MINUTES,
} from '../../src/members/password-resets.ts';
import { verifyPassword } from '../../src/members/passwords.ts';
import { createMemberSession, findCurrentSession } from '../../src/members/sessions.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { join, makeOrg, MINUTE_MS, PASSWORD, uniqueEmail } from './members-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness();
});
after(() => h.close());

const NEW_PASSWORD = 'a brand new passphrase';
const db = () => h.service.ctx.database.db;
const reset = (token: string, password: string) =>
  resetPassword(h.service.ctx.database, token, password, h.clock.now());

async function memberWithSessions(count: number) {
  const org = await makeOrg(h);
  const member = await join(h, org.id);
  const lifetimes = h.config.appSessions;
  const sessions = [];
  for (let i = 0; i < count; i++) {
    sessions.push(
      await createMemberSession(db(), {
        memberId: member.id,
        organizationId: org.id,
        userAgent: `device ${i}`,
        now: h.clock.now(),
        lifetimes,
      }),
    );
  }
  const alive = async (token: string) =>
    (await findCurrentSession(db(), token, h.clock.now(), lifetimes)) !== null;
  return { org, member, sessions, alive };
}

async function passwordOf(memberId: string) {
  return (await findMember(db(), memberId))!.passwordHash!;
}

describe('password reset', () => {
  test('no member with that email: null, and nothing to find', async () => {
    assert.equal(await requestPasswordReset(db(), uniqueEmail('nobody'), h.clock.now()), null);
    assert.equal(await requestPasswordReset(db(), '', h.clock.now()), null);
  });

  test('the link is the APP_URL origin + /password-reset/<token>', () => {
    assert.equal(
      passwordResetUrl(new URL('https://app.example.org'), 'Tok3n'),
      'https://app.example.org/password-reset/Tok3n',
    );
  });

  test('sets the new password, ends every session, and works once', async () => {
    const { member, sessions, alive } = await memberWithSessions(2);
    const requested = await requestPasswordReset(db(), `  ${member.email.toUpperCase()}`, h.clock.now());
    assert.ok(requested);
    assert.equal(requested.member.id, member.id);
    assert.match(requested.token, /^[A-Za-z0-9]{43}$/);
    const found = await findPasswordReset(db(), requested.token, h.clock.now());
    assert.ok(found.ok);
    assert.equal(found.member.id, member.id);

    const result = await reset(requested.token, NEW_PASSWORD);
    assert.ok(result.ok, JSON.stringify(result));
    assert.ok(await verifyPassword(NEW_PASSWORD, await passwordOf(member.id)));
    assert.equal(await verifyPassword(PASSWORD, await passwordOf(member.id)), false);
    for (const { token } of sessions) assert.equal(await alive(token), false, 'signed out everywhere');

    const again = await reset(requested.token, 'yet another passphrase');
    assert.equal(!again.ok && again.reason, 'used');
    assert.match(!again.ok ? again.message : '', /already been used/);
    assert.ok(await verifyPassword(NEW_PASSWORD, await passwordOf(member.id)), 'unchanged by the second use');
    assert.deepEqual(await findPasswordReset(db(), requested.token, h.clock.now()), {
      ok: false,
      reason: 'used',
    });
  });

  test('using one link spends the other links the member asked for', async () => {
    const { member } = await memberWithSessions(0);
    const first = (await requestPasswordReset(db(), member.email, h.clock.now()))!;
    const second = (await requestPasswordReset(db(), member.email, h.clock.now()))!;
    assert.ok((await reset(second.token, NEW_PASSWORD)).ok);
    assert.deepEqual(await findPasswordReset(db(), first.token, h.clock.now()), {
      ok: false,
      reason: 'used',
    });
  });

  test('a weak password is refused with the rule; the link still works', async () => {
    const { member, sessions, alive } = await memberWithSessions(1);
    const { token } = (await requestPasswordReset(db(), member.email, h.clock.now()))!;
    const weak = await reset(token, 'too short');
    assert.equal(!weak.ok && weak.reason, 'weak_password');
    assert.match(!weak.ok ? weak.message : '', /at least 10 characters/);
    assert.ok(await verifyPassword(PASSWORD, await passwordOf(member.id)));
    assert.ok(await alive(sessions[0]!.token), 'a refused reset signs no one out');
    assert.ok((await reset(token, NEW_PASSWORD)).ok);
  });

  test(`expires after ${RESET_MINUTES} minutes`, async () => {
    const { member } = await memberWithSessions(0);
    const requested = h.clock.now().getTime();
    const { token } = (await requestPasswordReset(db(), member.email, new Date(requested)))!;
    const lifetime = RESET_MINUTES * MINUTE_MS;
    assert.ok((await findPasswordReset(db(), token, new Date(requested + lifetime - 1))).ok);
    assert.deepEqual(await findPasswordReset(db(), token, new Date(requested + lifetime)), {
      ok: false,
      reason: 'expired',
    });
    h.clock.advance(lifetime + 1000);
    const result = await reset(token, NEW_PASSWORD);
    assert.equal(!result.ok && result.reason, 'expired');
    assert.ok(await verifyPassword(PASSWORD, await passwordOf(member.id)));
  });

  test('an unknown or malformed token is unknown', async () => {
    for (const token of ['', 'short', 'Q'.repeat(43)]) {
      assert.deepEqual(await findPasswordReset(db(), token, h.clock.now()), { ok: false, reason: 'unknown' });
      const result = await reset(token, NEW_PASSWORD);
      assert.equal(!result.ok && result.reason, 'unknown');
    }
  });
});

describe('changePassword', () => {
  test('needs the current password; changes it and ends the other sessions only', async () => {
    const { member, sessions, alive } = await memberWithSessions(3);
    const [kept, ...others] = sessions;
    const change = (current: string, next: string) =>
      changePassword(h.service.ctx.database, {
        memberId: member.id,
        current,
        next,
        keepSessionId: kept!.session.id,
        now: h.clock.now(),
      });

    assert.deepEqual(await change('not my password', NEW_PASSWORD), {
      ok: false,
      field: 'current',
      message: 'Your current password is not right',
    });
    const weak = await change(PASSWORD, 'short');
    assert.equal(!weak.ok && weak.field, 'next');
    assert.match(!weak.ok ? weak.message : '', /at least 10 characters/);
    const same = await change(PASSWORD, PASSWORD);
    assert.equal(!same.ok && same.field, 'next');
    for (const { token } of sessions) assert.ok(await alive(token), 'refusals sign no one out');
    assert.ok(await verifyPassword(PASSWORD, await passwordOf(member.id)));

    assert.deepEqual(await change(PASSWORD, NEW_PASSWORD), { ok: true });
    assert.ok(await verifyPassword(NEW_PASSWORD, await passwordOf(member.id)));
    assert.ok(await alive(kept!.token), 'this session stays');
    for (const { token } of others) assert.equal(await alive(token), false);
    assert.ok((await findMember(db(), member.id))!.passwordChangedAt);
  });

  test('an unknown member is refused on the current password', async () => {
    const result = await changePassword(h.service.ctx.database, {
      memberId: 'mem_ZZZZZZZZZZZZZZZZZZZZZZZZ',
      current: PASSWORD,
      next: NEW_PASSWORD,
      keepSessionId: 'ast_ZZZZZZZZZZZZZZZZZZZZZZZZ',
      now: h.clock.now(),
    });
    assert.equal(!result.ok && result.field, 'current');
  });
});
