// No secret of the organizer app in the log: passwords, session cookies, CSRF tokens, and the
// single-use tokens in invitation and reset links (which are in the path), with the app host
// logging at info into memory.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { AppContext } from '../../src/context.ts';
import { buildAppHost } from '../../src/hosts.ts';
import { attachMailer, mailerOf } from '../../src/mail/mailer.ts';
import { createInvitation } from '../../src/members/invitations.ts';
import { requestPasswordReset } from '../../src/members/password-resets.ts';
import type { Host } from '../../src/platform/http.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { encodeForm } from './app-helpers.ts';

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
  attachMailer(ctx, mailerOf(h.service.ctx));
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
