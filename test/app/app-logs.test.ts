// No secret of the organizer app in the log: passwords, session cookies, CSRF tokens, and the
// single-use tokens in invitation and reset links (which are in the path), with the app host
// logging at info into memory; and no buyer's details searched for, whose queries are logged with
// their parameters' names only.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { AppContext } from '../../src/context.ts';
import { buildAppHost } from '../../src/hosts.ts';
import { createInvitation } from '../../src/members/invitations.ts';
import { requestPasswordReset } from '../../src/members/password-resets.ts';
import type { Host } from '../../src/platform/http.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { encodeForm, makeMember } from './app-helpers.ts';

let h: Harness;
let app: Host;
const lines: string[] = [];

before(async () => {
  h = await startHarness();
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger('info', sink);
  const ctx: AppContext = { ...h.service.ctx, log: logger };
  app = await buildAppHost(ctx, logger);
  await app.ready();
});
after(async () => {
  await app?.close();
  await h.close();
});

function cookiesOf(res: { headers: Record<string, unknown> }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of [res.headers['set-cookie'] ?? []].flat().map(String)) {
    const [pair] = line.split(';');
    const eq = pair!.indexOf('=');
    out[pair!.slice(0, eq)] = pair!.slice(eq + 1);
  }
  return out;
}

test('sign-in, invitation and reset secrets never reach the log', async () => {
  const ctx = h.service.ctx;
  const { organizationId } = await makePartner(h);
  const email = 'logged.member@example.org';
  const password = 'a password never logged';
  const { token: invitation } = await createInvitation(ctx.database.db, {
    organizationId,
    email,
    role: 'owner',
    invitedBy: null,
    now: ctx.clock.now(),
  });
  const page = await app.inject({ url: `/invitations/${invitation}` });
  const csrf = cookiesOf(page).app_csrf!;
  const form = (fields: Record<string, string>) => ({
    method: 'POST' as const,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `app_csrf=${csrf}` },
    payload: encodeForm({ _csrf: csrf, ...fields }),
  });
  const accepted = await app.inject({ url: `/invitations/${invitation}`, ...form({ password }) });
  assert.equal(accepted.statusCode, 303);
  const session = cookiesOf(accepted).app_session!;
  const signedIn = await app.inject({ ...form({ email, password }), url: '/sign-in' });
  assert.equal(signedIn.statusCode, 303);
  const wrong = await app.inject({ ...form({ email, password: `${password} wrong` }), url: '/sign-in' });
  assert.equal(wrong.statusCode, 422);
  assert.equal(
    (await app.inject({ url: '/account', headers: { cookie: `app_session=${session}` } })).statusCode,
    200,
  );
  const reset = await requestPasswordReset(ctx.database.db, email, ctx.clock.now());
  assert.ok(reset);
  assert.equal((await app.inject({ url: `/password-reset/${reset.token}` })).statusCode, 200);
  const weak = await app.inject({ url: `/password-reset/${reset.token}`, ...form({ password: 'short' }) });
  assert.equal(weak.statusCode, 422);
  const refused = await app.inject({
    url: `/password-reset/${reset.token}`,
    ...form({ _csrf: 'wrong-one', password }),
  });
  assert.equal(refused.statusCode, 403);

  const log = lines.join('\n');
  assert.ok(lines.length > 0, 'the host logged');
  assert.match(log, /\/sign-in/, 'requests are still logged');
  for (const secret of [password, invitation, reset.token, session, csrf]) {
    assert.ok(!log.includes(secret), `a secret (${secret.slice(0, 6)}…) is in the log`);
  }
});

test("an order search is logged with its parameters' names, never the buyer's details it searched for", async () => {
  const { organizationId } = await makePartner(h);
  const member = await makeMember(h, organizationId, 'viewer');
  const page = await app.inject({ url: '/sign-in' });
  const csrf = cookiesOf(page).app_csrf!;
  const signedIn = await app.inject({
    method: 'POST',
    url: '/sign-in',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `app_csrf=${csrf}` },
    payload: encodeForm({ _csrf: csrf, email: member.email, password: member.password }),
  });
  assert.equal(signedIn.statusCode, 303);
  const cookie = `app_session=${cookiesOf(signedIn).app_session!}`;
  const searched = ['amara.searched@example.org', '0772 555 123', 'Amara Searched'];
  const before = lines.length;
  for (const url of [
    `/orders?q=${encodeURIComponent(searched[0]!)}&status=paid`,
    `/orders.csv?q=${encodeURIComponent(searched[1]!)}`,
    `/orders?q=${encodeURIComponent(searched[2]!)}#top`,
    `/orders?${encodeURIComponent(searched[0]!)}`,
  ]) {
    const res = await app.inject({ url, headers: { cookie } });
    assert.equal(res.statusCode, 200, `${url}: ${res.statusCode}`);
  }
  const log = lines.slice(before).join('\n');
  assert.match(log, /"url":"\/orders\?q=\[redacted\]&status=\[redacted\]"/);
  assert.match(log, /"url":"\/orders\.csv\?q=\[redacted\]"/);
  for (const text of searched) {
    for (const form of [text, encodeURIComponent(text), text.replace(/ /g, '+')]) {
      assert.ok(!log.includes(form), `the search "${text}" is in the log`);
    }
  }
  assert.ok(!log.includes('amara.searched%40example.org'));
});
