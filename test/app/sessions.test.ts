// Signing in and out of the organizer app, the session cookie, the rate-limit refusal, and
// sessions ending: revoked elsewhere, idle too long, past their absolute lifetime.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cookieNames } from '../../src/app/app-cookies.ts';
import { CONTENT_SECURITY_POLICY } from '../../src/app/app-scope.ts';
import { NEXT_MAX_LENGTH, safeNext } from '../../src/app/app-access.ts';
import { loadConfig } from '../../src/config.ts';
import { listMemberSessions } from '../../src/members/sessions.ts';
import { makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { Agent, locationOf, makeMember, makeOrganization, signIn, textOf } from './app-helpers.ts';

let h: Harness;
let organizationId: string;

before(async () => {
  // Three attempts per account, then a refusal for minutes: the rate-limit tests need few tries.
  h = await startHarness({ env: { RATE_LIMIT_SIGN_IN_ACCOUNT_BURST: '3' } });
  organizationId = (await makePartner(h)).organizationId;
});
after(() => h.close());

function sessionsOf(memberId: string) {
  return listMemberSessions(h.service.ctx.database.db, memberId, h.clock.now(), h.config.appSessions);
}

describe('sign-in', () => {
  test('signed out, / leads to the sign-in page with its labelled fields', async () => {
    const agent = new Agent(h);
    const res = await agent.get('/');
    assert.equal(res.statusCode, 303);
    assert.equal(locationOf(res), '/sign-in');
    const page = await agent.get('/sign-in');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<label for="f-email">Email<\/label>/);
    assert.match(page.body, /<label for="f-password">Password<\/label>/);
    assert.match(page.body, /<button type="submit" class="primary">Sign in<\/button>/);
    assert.match(page.body, /<a href="\/password-reset">Forgot your password\?<\/a>/);
    assert.ok(agent.cookies.has('app_csrf'), 'the double-submit cookie is set');
  });

  test('a correct email and password start a new session with a safe cookie and go to next', async () => {
    const member = await makeMember(h, organizationId, 'developer');
    const agent = new Agent(h);
    await agent.get('/sign-in?next=%2Fdevelopers');
    const res = await agent.post('/sign-in', {
      email: ` ${member.email.toUpperCase()} `,
      password: member.password,
      next: '/developers',
    });
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(locationOf(res), '/developers');
    const cookie = [res.headers['set-cookie']]
      .flat()
      .map(String)
      .find((c) => c.startsWith('app_session='))!;
    assert.ok(cookie, 'a session cookie');
    assert.match(cookie, /; HttpOnly/i);
    assert.match(cookie, /; SameSite=Lax/i);
    assert.match(cookie, /; Path=\//i);
    assert.match(cookie, new RegExp(`; Max-Age=${h.config.appSessions.maxHours * 3600}`, 'i'));
    const sessions = await sessionsOf(member.memberId);
    assert.equal(sessions.length, 1);
    assert.equal(sessions[0]!.userAgent, 'AppTest/1.0');
    const overview = await agent.get('/');
    assert.equal(overview.statusCode, 200);
    assert.match(textOf(overview.body), /with the role developer/);
    assert.match(overview.body, />Developer settings</);
    assert.match(overview.body, />Account</);
    assert.match(overview.body, />Sign out</);

    // Signing in again (a sign-in form loaded earlier) gives another session, never the old one back.
    agent.csrf = agent.cookies.get('app_csrf')!;
    const again = await agent.post('/sign-in', { email: member.email, password: member.password });
    assert.equal(again.statusCode, 303);
    assert.equal((await agent.get('/')).statusCode, 200);
    const after = await sessionsOf(member.memberId);
    assert.equal(after.length, 1, 'the earlier session of this browser was ended');
    assert.notEqual(after[0]!.id, sessions[0]!.id);
  });

  test('a wrong password and an unknown email get the same message and 422, and no session', async () => {
    const member = await makeMember(h, organizationId, 'viewer');
    const messages = [];
    for (const email of [member.email, 'nobody-here@example.org']) {
      const agent = new Agent(h);
      await agent.get('/sign-in');
      const res = await agent.post('/sign-in', { email, password: 'not the password' });
      assert.equal(res.statusCode, 422);
      assert.equal(agent.cookies.has('app_session'), false);
      messages.push(/<div class="summary"[\s\S]*?<\/div>/.exec(res.body)?.[0]);
    }
    assert.ok(messages[0]);
    assert.equal(messages[0], messages[1]);
    assert.match(messages[0]!, /The email address or the password is not right/);
  });

  test('missing or oversized fields come back next to the field with 422', async () => {
    const agent = new Agent(h);
    await agent.get('/sign-in');
    const res = await agent.post('/sign-in', { email: '', password: 'x'.repeat(201), extra: 'ignored' });
    assert.equal(res.statusCode, 422);
    assert.match(res.body, /id="f-email-error">Enter your email address\./);
    assert.match(res.body, /aria-describedby="f-email-error"/);
    assert.match(res.body, /Password must be at most 200 characters/);
    assert.match(res.body, /<title>Error: Sign in/);
  });

  test('a next up to its limit is followed after signing in; a longer one is left out for the overview', async () => {
    const member = await makeMember(h, organizationId, 'viewer');
    const longest = `/${'a'.repeat(NEXT_MAX_LENGTH - 1)}`;
    for (const [next, to] of [
      [longest, longest],
      [`${longest}a`, '/'],
    ] as const) {
      const agent = new Agent(h);
      await agent.get('/sign-in');
      const res = await agent.post('/sign-in', { email: member.email, password: member.password, next });
      assert.equal(res.statusCode, 303);
      assert.equal(locationOf(res), to);
    }
  });

  test('after repeated failures sign-in is refused with 429, Retry-After and a clear message', async () => {
    const member = await makeMember(h, organizationId, 'owner');
    const agent = new Agent(h);
    await agent.get('/sign-in');
    for (let i = 0; i < 3; i++) {
      const res = await agent.post('/sign-in', { email: member.email, password: 'wrong password' });
      assert.equal(res.statusCode, 422);
    }
    // Even the right password is refused now, and from another address too (per account).
    const other = new Agent(h);
    await other.get('/sign-in');
    const refused = await other.post('/sign-in', { email: member.email, password: member.password });
    assert.equal(refused.statusCode, 429);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter > 0, String(refused.headers['retry-after']));
    const minutes = Math.max(1, Math.ceil(retryAfter / 60));
    const unit = minutes === 1 ? 'minute' : 'minutes';
    assert.match(refused.body, new RegExp(`Too many sign-in attempts\\. Try again in ${minutes} ${unit}\\.`));
    assert.equal((await sessionsOf(member.memberId)).length, 0);
  });

  test('a body that is not a small form gets an error page, never a 500', async () => {
    const agent = new Agent(h);
    await agent.get('/sign-in');
    const post = (payload: string, type: string) =>
      h.service.app.inject({
        method: 'POST',
        url: '/sign-in',
        remoteAddress: agent.ip,
        headers: { 'content-type': type, cookie: agent.cookieHeader() },
        payload,
      });
    const json = await post(JSON.stringify({ email: 'a@example.org' }), 'application/json');
    assert.equal(json.statusCode, 415);
    assert.match(json.headers['content-type'] as string, /^text\/html/);
    const big = await post(
      `_csrf=${agent.csrf}&email=${'a'.repeat(20_000)}`,
      'application/x-www-form-urlencoded',
    );
    assert.equal(big.statusCode, 413);
    assert.match(big.body, /The form was too large/);
    const nul = await post(`_csrf=${agent.csrf}&email=a%00b&password=x`, 'application/x-www-form-urlencoded');
    assert.equal(nul.statusCode, 400);
    assert.match(nul.headers['content-type'] as string, /^text\/html/);
  });

  test('Origin null (our no-referrer pages) passes with the token; a cross-site Sec-Fetch-Site does not', async () => {
    const member = await makeMember(h, organizationId, 'viewer');
    const agent = new Agent(h);
    await agent.get('/sign-in');
    const token = agent.csrf!;
    const crossSite = await agent.post(
      '/sign-in',
      { email: member.email, password: member.password },
      { 'sec-fetch-site': 'cross-site' },
    );
    assert.equal(crossSite.statusCode, 403);
    assert.equal((await sessionsOf(member.memberId)).length, 0);
    agent.csrf = token;
    const res = await agent.post(
      '/sign-in',
      { email: member.email, password: member.password },
      { origin: 'null', 'sec-fetch-site': 'same-origin' },
    );
    assert.equal(res.statusCode, 303);
  });

  test('next is only ever a path of this site', () => {
    assert.equal(safeNext('/developers?x=1'), '/developers?x=1');
    for (const bad of [
      '//evil.example',
      '/\\evil.example',
      'https://evil.example',
      'developers',
      '',
      null,
      '/\tx',
    ]) {
      assert.equal(safeNext(bad), null, String(bad));
    }
  });

  test('pages carry the security headers', async () => {
    const res = await new Agent(h).get('/sign-in');
    assert.equal(res.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
    assert.match(
      CONTENT_SECURITY_POLICY,
      /default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'/,
    );
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
  });

  test('the cookies take the __Host- prefix and Secure when APP_URL is https', () => {
    const https = cookieNames(loadConfig({ NODE_ENV: 'test', APP_URL: 'https://app.example.org' }));
    assert.deepEqual(https, { session: '__Host-app_session', csrf: '__Host-app_csrf', secure: true });
    const http = cookieNames(loadConfig({ NODE_ENV: 'test', APP_URL: 'http://127.0.0.1:4002' }));
    assert.deepEqual(http, { session: 'app_session', csrf: 'app_csrf', secure: false });
  });
});

describe('sessions ending', () => {
  test('Sign out revokes the session on the server: the old cookie no longer works', async () => {
    const member = await makeMember(h, organizationId, 'viewer');
    const agent = await signIn(h, member);
    const stolen = agent.cookieHeader();
    const res = await agent.post('/sign-out');
    assert.equal(res.statusCode, 303);
    assert.match(locationOf(res), /^\/sign-in/);
    assert.equal(agent.cookies.has('app_session'), false, 'the cookie is cleared');
    const replay = await h.service.app.inject({ url: '/', headers: { cookie: stolen } });
    assert.equal(replay.statusCode, 303);
    assert.equal((await sessionsOf(member.memberId)).length, 0);
  });

  test('a session revoked from another browser is signed out on its next request', async () => {
    const member = await makeMember(h, organizationId, 'developer');
    const laptop = await signIn(h, member);
    const phone = await signIn(h, member);
    const account = await laptop.get('/account');
    assert.match(account.body, /This session/);
    assert.equal((await sessionsOf(member.memberId)).length, 2);
    const res = await laptop.post('/account/sessions/revoke-others');
    assert.equal(res.statusCode, 303);
    const next = await phone.get('/developers');
    assert.equal(next.statusCode, 303);
    assert.equal(locationOf(next), '/sign-in?next=%2Fdevelopers');
    assert.equal((await laptop.get('/developers')).statusCode, 200);
    assert.equal((await sessionsOf(member.memberId)).length, 1);
  });

  test('one session is revoked with its Revoke button; revoking your own signs you out', async () => {
    const member = await makeMember(h, organizationId, 'viewer');
    const laptop = await signIn(h, member);
    const phone = await signIn(h, member);
    const [newest, older] = await sessionsOf(member.memberId);
    assert.ok(newest && older);
    await laptop.get('/account');
    const res = await laptop.post(`/account/sessions/${newest.id}/revoke`); // the phone's
    assert.equal(res.statusCode, 303);
    assert.equal((await phone.get('/')).statusCode, 303);
    const own = await laptop.post(`/account/sessions/${older.id}/revoke`);
    assert.equal(own.statusCode, 303);
    assert.match(locationOf(own), /^\/sign-in/);
    assert.equal((await laptop.get('/')).statusCode, 303);
  });

  test('a session unused for the idle time ends; one used keeps going until its absolute end', async () => {
    const member = await makeMember(h, organizationId, 'viewer');
    const idle = await signIn(h, member);
    const busy = await signIn(h, member);
    const { idleMinutes, maxHours } = h.config.appSessions;
    const step = (idleMinutes - 5) * 60_000;
    const maxMs = maxHours * 3600_000;
    let total = 0;
    while (total + step < maxMs) {
      h.clock.advance(step);
      total += step;
      assert.equal((await busy.get('/account')).statusCode, 200, `after ${total / 60_000} minutes`);
    }
    assert.equal((await idle.get('/')).statusCode, 303, 'the idle session ended');
    // Past the absolute end, though used less than the idle time ago.
    h.clock.advance(maxMs - total + 1000);
    const res = await busy.get('/account');
    assert.equal(res.statusCode, 303, 'past the absolute lifetime');
    assert.equal(locationOf(res), '/sign-in?next=%2Faccount');
  });

  test('a member of several organizations switches between them', async () => {
    const second = await makeOrganization(h, 'Second Club');
    const member = await makeMember(h, organizationId, 'owner');
    await makeMember(h, second.id, 'viewer', { email: member.email, password: member.password });
    const agent = await signIn(h, member);
    const page = await agent.get('/');
    assert.match(page.body, /action="\/organizations\/switch"/);
    const res = await agent.post('/organizations/switch', { organization_id: second.id });
    assert.equal(res.statusCode, 303);
    const after = await agent.get('/');
    assert.match(textOf(after.body), /Second Club/);
    assert.match(textOf(after.body), /with the role viewer/);
    const refused = await agent.post('/organizations/switch', {
      organization_id: (await makeOrganization(h)).id,
    });
    assert.equal(refused.statusCode, 404);
    for (const organization_id of [
      organizationId.replace('org_', 'evt_'),
      `${organizationId}${'a'.repeat(80)}`,
    ]) {
      const unfit = await agent.post('/organizations/switch', { organization_id });
      assert.equal(unfit.statusCode, 404, organization_id);
    }
    assert.match(textOf((await agent.get('/')).body), /with the role viewer/, 'still in the second');
  });
});
