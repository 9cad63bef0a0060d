// Sessions: a new id and token at every sign-in, stored only as a hash; idle and absolute
// lifetimes (moved with the harness clock); revoking one or all others; switching organization;
// a session follows its member when they lose the organization it was in.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { changeMembership } from '../../src/members/members.ts';
import {
  createMemberSession,
  findCurrentSession,
  listMemberSessions,
  revokeMemberSession,
  revokeOtherSessions,
  switchOrganization,
  type SessionLifetimes,
} from '../../src/members/sessions.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { HOUR_MS, join, makeOrg, MINUTE_MS } from './members-helpers.ts';

let h: Harness;
let lifetimes: SessionLifetimes;

before(async () => {
  h = await startHarness({ env: { APP_SESSION_IDLE_MINUTES: '30', APP_SESSION_MAX_HOURS: '12' } });
  lifetimes = h.config.appSessions;
});
after(() => h.close());

const db = () => h.service.ctx.database.db;
const current = (token: string) => findCurrentSession(db(), token, h.clock.now(), lifetimes);

async function signedIn(memberId: string, organizationId: string, userAgent = 'test-agent/1.0') {
  return createMemberSession(db(), { memberId, organizationId, userAgent, now: h.clock.now(), lifetimes });
}

describe('createMemberSession and findCurrentSession', () => {
  test('a new session: ast_ id, token only hashed, CSRF token, absolute end from maxHours', async () => {
    assert.deepEqual(lifetimes, { idleMinutes: 30, maxHours: 12 });
    const org = await makeOrg(h, 'Session Club');
    const member = await join(h, org.id, { role: 'developer' });
    const { session, token } = await signedIn(member.id, org.id, 'Mozilla/5.0 '.repeat(100));
    assert.match(session.id, /^ast_[A-Za-z0-9]{24}$/);
    assert.match(token, /^[A-Za-z0-9]{43}$/);
    assert.notEqual(session.tokenHash, token);
    assert.match(session.csrfToken, /^[A-Za-z0-9]{32,}$/);
    assert.equal(session.expiresAt.getTime() - session.createdAt.getTime(), 12 * HOUR_MS);
    assert.equal(session.lastSeenAt.getTime(), session.createdAt.getTime());
    assert.equal(session.userAgent.length, 512, 'a long user agent is cut');

    const found = await current(token);
    assert.ok(found);
    assert.equal(found.session.id, session.id);
    assert.equal(found.member.id, member.id);
    assert.equal(found.organizationId, org.id);
    assert.equal(found.organizationName, 'Session Club');
    assert.equal(found.role, 'developer');
  });

  test('every sign-in is a new session with a new id and token', async () => {
    const org = await makeOrg(h);
    const member = await join(h, org.id);
    const a = await signedIn(member.id, org.id);
    const b = await signedIn(member.id, org.id);
    assert.notEqual(a.session.id, b.session.id);
    assert.notEqual(a.token, b.token);
    assert.notEqual(a.session.csrfToken, b.session.csrfToken);
  });

  test('an unknown or malformed token is no session', async () => {
    for (const token of ['', 'ast_x', 'Z'.repeat(43), `${'a'.repeat(43)}\u0000`]) {
      assert.equal(await current(token), null);
    }
  });

  test('ends after idleMinutes unused; use keeps it alive', async () => {
    const org = await makeOrg(h);
    const member = await join(h, org.id);
    const { token } = await signedIn(member.id, org.id);
    // used every 20 minutes for two hours: never idle for 30
    for (let i = 0; i < 6; i++) {
      h.clock.advance(20 * MINUTE_MS);
      assert.ok(await current(token), `use ${i + 1}`);
    }
    h.clock.advance(31 * MINUTE_MS);
    assert.equal(await current(token), null, 'idle for 31 minutes');
    assert.deepEqual(await listMemberSessions(db(), member.id, h.clock.now(), lifetimes), []);
  });

  test('ends at expires_at however active', async () => {
    const org = await makeOrg(h);
    const member = await join(h, org.id);
    const { token } = await signedIn(member.id, org.id);
    const start = h.clock.now().getTime();
    while (h.clock.now().getTime() - start < 12 * HOUR_MS - 20 * MINUTE_MS) {
      h.clock.advance(20 * MINUTE_MS);
      assert.ok(await current(token));
    }
    h.clock.advance(21 * MINUTE_MS);
    // now past 12 hours after sign-in, though used within the last half hour
    assert.equal(await current(token), null);
  });

  test('last_seen_at is written only when more than a minute old', async () => {
    const org = await makeOrg(h);
    const member = await join(h, org.id);
    const { session, token } = await signedIn(member.id, org.id);
    h.clock.advance(30_000);
    assert.equal((await current(token))!.session.lastSeenAt.getTime(), session.lastSeenAt.getTime());
    h.clock.advance(61_000);
    const now = h.clock.now();
    const later = await findCurrentSession(db(), token, now, lifetimes);
    assert.equal(later!.session.lastSeenAt.getTime(), now.getTime());
  });
});

describe('listing and revoking sessions', () => {
  test('lists live sessions newest first; revoking one ends it on its next request', async () => {
    const org = await makeOrg(h);
    const member = await join(h, org.id);
    const other = await join(h, org.id);
    const first = await signedIn(member.id, org.id, 'first');
    h.clock.advance(1000);
    const second = await signedIn(member.id, org.id, 'second');
    await signedIn(other.id, org.id, 'someone else');
    const listed = await listMemberSessions(db(), member.id, h.clock.now(), lifetimes);
    assert.deepEqual(
      listed.map((s) => s.userAgent),
      ['second', 'first'],
    );

    assert.equal(
      await revokeMemberSession(db(), other.id, first.session.id, h.clock.now()),
      false,
      'not theirs',
    );
    assert.ok(await current(first.token));
    assert.equal(await revokeMemberSession(db(), member.id, first.session.id, h.clock.now()), true);
    assert.equal(await revokeMemberSession(db(), member.id, first.session.id, h.clock.now()), false, 'once');
    assert.equal(await current(first.token), null);
    assert.ok(await current(second.token));
  });

  test('revokeOtherSessions keeps one (or none) and counts the rest', async () => {
    const org = await makeOrg(h);
    const member = await join(h, org.id);
    const other = await join(h, org.id);
    const kept = await signedIn(member.id, org.id);
    const a = await signedIn(member.id, org.id);
    const b = await signedIn(member.id, org.id);
    const theirs = await signedIn(other.id, org.id);
    assert.equal(await revokeOtherSessions(db(), member.id, kept.session.id, h.clock.now()), 2);
    assert.ok(await current(kept.token));
    assert.equal(await current(a.token), null);
    assert.equal(await current(b.token), null);
    assert.ok(await current(theirs.token), "another member's session is untouched");
    assert.equal(await revokeOtherSessions(db(), member.id, null, h.clock.now()), 1);
    assert.equal(await current(kept.token), null);
  });
});

describe('organizations of a session', () => {
  test('switchOrganization moves to an organization of the member, and refuses any other', async () => {
    const home = await makeOrg(h, 'Home Club');
    const away = await makeOrg(h, 'Away Club');
    const stranger = await makeOrg(h, 'Not Theirs');
    const member = await join(h, home.id, { role: 'owner' });
    await join(h, away.id, { email: member.email, role: 'viewer' });
    const { token } = await signedIn(member.id, home.id);
    const { session } = (await current(token))!;
    assert.equal(await switchOrganization(db(), session.id, member.id, stranger.id), false);
    assert.equal((await current(token))!.organizationId, home.id);
    assert.equal(await switchOrganization(db(), session.id, member.id, away.id), true);
    const moved = (await current(token))!;
    assert.equal(moved.organizationId, away.id);
    assert.equal(moved.organizationName, 'Away Club');
    assert.equal(moved.role, 'viewer');
    const intruder = await join(h, stranger.id);
    assert.equal(
      await switchOrganization(db(), session.id, intruder.id, stranger.id),
      false,
      "not the member's session",
    );
  });

  test('a member removed from the session organization moves to their oldest other; none left: signed out', async () => {
    const first = await makeOrg(h, 'First');
    const second = await makeOrg(h, 'Second');
    const third = await makeOrg(h, 'Third');
    const member = await join(h, first.id, { role: 'viewer' });
    h.clock.advance(1000);
    await join(h, second.id, { email: member.email, role: 'admin' });
    h.clock.advance(1000);
    await join(h, third.id, { email: member.email, role: 'developer' });
    // each organization keeps an owner, so the member can be removed
    for (const org of [first, second, third]) await join(h, org.id, { role: 'owner' });
    const { token } = await signedIn(member.id, third.id);

    const database = h.service.ctx.database;
    assert.ok(
      (await changeMembership(database, { organizationId: third.id, memberId: member.id, role: null })).ok,
    );
    const moved = (await current(token))!;
    assert.equal(moved.organizationId, first.id, 'the oldest membership left');
    assert.equal(moved.role, 'viewer');
    assert.equal(moved.session.organizationId, first.id, 'stored, not only answered');

    assert.ok(
      (await changeMembership(database, { organizationId: first.id, memberId: member.id, role: null })).ok,
    );
    assert.equal((await current(token))!.organizationId, second.id);
    assert.ok(
      (await changeMembership(database, { organizationId: second.id, memberId: member.id, role: null })).ok,
    );
    assert.equal(await current(token), null);
  });
});
