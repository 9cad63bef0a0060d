// Joining through an invitation (made by the operator's admin API) and getting back in through a
// password reset mailed to the development mailbox.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makePartner, startHarness, TEST_ADMIN_KEY, type Harness } from '../helpers/harness.ts';
import { Agent, locationOf, makeMember, textOf } from './app-helpers.ts';
import { waitFor } from '../helpers/wait.ts';

let h: Harness;
let organizationId: string;

before(async () => {
  h = await startHarness();
  organizationId = (await makePartner(h)).organizationId;
});
after(() => h.close());

async function invite(email: string, role: string, org = organizationId): Promise<string> {
  const res = await h.service.app.inject({
    method: 'POST',
    url: `/admin/v1/organizations/${org}/invitations`,
    headers: { authorization: `Bearer ${TEST_ADMIN_KEY}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ email, role }),
  });
  assert.equal(res.statusCode, 201, res.body);
  const url = new URL(res.json().data.invitation_url as string);
  assert.equal(url.origin, h.config.appUrl.origin);
  return url.pathname;
}

describe('invitations', () => {
  test('the operator invites an owner, who sets a password, is signed in, and can sign in again', async () => {
    const path = await invite('first.owner@example.org', 'owner');
    const agent = new Agent(h);
    const page = await agent.get(path);
    assert.equal(page.statusCode, 200);
    assert.match(textOf(page.body), /as owner ?, with the email address first\.owner@example\.org/);
    assert.match(page.body, /<label for="f-password">Password<\/label>/);
    assert.match(page.body, /at least 10 characters/);
    assert.match(page.body, />Accept invitation<\/button>/);

    const weak = await agent.post(path, { password: 'short' });
    assert.equal(weak.statusCode, 422);
    assert.match(weak.body, /id="f-password-error"/);

    const res = await agent.post(path, { password: 'a long enough password', name: 'First Owner' });
    assert.equal(res.statusCode, 303, res.body.slice(0, 300));
    assert.equal(locationOf(res), '/');
    const overview = await agent.get('/');
    assert.equal(overview.statusCode, 200);
    assert.match(textOf(overview.body), /with the role owner/);

    const used = await new Agent(h).get(path);
    assert.equal(used.statusCode, 410);
    assert.match(used.body, /already been used/);

    await agent.post('/sign-out');
    await agent.get('/sign-in');
    const again = await agent.post('/sign-in', {
      email: 'first.owner@example.org',
      password: 'a long enough password',
    });
    assert.equal(again.statusCode, 303);
  });

  test('an existing member joins a second organization with their current password', async () => {
    const member = await makeMember(h, organizationId, 'developer');
    const second = await makePartner(h);
    const path = await invite(member.email, 'viewer', second.organizationId);
    const agent = new Agent(h);
    const page = await agent.get(path);
    assert.match(page.body, /enter your current password to join/);
    const wrong = await agent.post(path, { password: 'not my password at all' });
    assert.equal(wrong.statusCode, 422);
    const res = await agent.post(path, { password: member.password });
    assert.equal(res.statusCode, 303);
    const overview = await agent.get('/');
    assert.match(overview.body, /action="\/organizations\/switch"/, 'two organizations now');
  });

  test('unknown, revoked and expired links say so', async () => {
    const unknown = await new Agent(h).get('/invitations/NoSuchToken0123456789abcdefghijklmnopqrstu');
    assert.equal(unknown.statusCode, 404);
    const bad = await new Agent(h).get('/invitations/%3Cscript%3E');
    assert.equal(bad.statusCode, 404);
    const first = await invite('twice@example.org', 'viewer');
    await invite('twice@example.org', 'viewer'); // only the newest link works
    const revoked = await new Agent(h).get(first);
    assert.equal(revoked.statusCode, 410);
    const expiring = await invite('late@example.org', 'viewer');
    h.clock.advance(8 * 24 * 3600_000);
    const expired = await new Agent(h).get(expiring);
    assert.equal(expired.statusCode, 410);
    assert.match(expired.body, /has expired/);
  });
});

describe('password reset through the development mailbox', () => {
  test('a reset link is mailed, sets a new password once, and signs out every session', async () => {
    const member = await makeMember(h, organizationId, 'viewer');
    const signedIn = new Agent(h);
    await signedIn.get('/sign-in');
    assert.equal(
      (await signedIn.post('/sign-in', { email: member.email, password: member.password })).statusCode,
      303,
    );

    const agent = new Agent(h);
    const form = await agent.get('/password-reset');
    assert.match(form.body, /<label for="f-email">Email<\/label>/);
    assert.match(form.body, />Send reset link<\/button>/);
    const known = await agent.post('/password-reset', { email: member.email });
    const unknown = await agent.post('/password-reset', { email: 'nobody-at-all@example.org' });
    assert.equal(known.statusCode, 200);
    assert.equal(textOf(known.body), textOf(unknown.body), 'the same answer either way');

    // The mail goes after the answer (so both answers take the same time): wait until it is listed.
    const listed = new RegExp(
      `<td>${member.email.replace(/[.]/g, '\\.')}</td>\\s*<td><a href="(/dev/mailbox/[^"]+)"`,
    );
    let mailPath: string | undefined;
    await waitFor('the reset mail in the mailbox', async () => {
      const mailbox = await agent.get('/dev/mailbox');
      assert.equal(mailbox.statusCode, 200);
      mailPath = listed.exec(mailbox.body)?.[1];
      return mailPath !== undefined;
    });
    assert.ok(mailPath, 'the mail is listed');
    const mail = await agent.get(mailPath);
    const link = new RegExp(`href="(${h.config.appUrl.origin}/password-reset/[A-Za-z0-9]+)"`).exec(
      mail.body,
    )?.[1];
    assert.ok(link, 'the mail carries the link');
    const path = new URL(link).pathname;

    const page = await agent.get(path);
    assert.match(page.body, /<label for="f-password">New password<\/label>/);
    assert.match(page.body, />Set new password<\/button>/);
    const weak = await agent.post(path, { password: 'short' });
    assert.equal(weak.statusCode, 422);
    const res = await agent.post(path, { password: 'my brand new password' });
    assert.equal(res.statusCode, 303);
    assert.equal(locationOf(res), '/sign-in?notice=reset');
    assert.match((await agent.get('/sign-in?notice=reset')).body, /Your password was changed/);

    assert.equal((await signedIn.get('/')).statusCode, 303, 'the other session ended');
    assert.equal((await agent.get(path)).statusCode, 410, 'single use');
    await agent.get('/sign-in');
    assert.equal(
      (await agent.post('/sign-in', { email: member.email, password: 'my brand new password' })).statusCode,
      303,
    );
  });

  test('an unknown mail or a bad link is a 404 page', async () => {
    const agent = new Agent(h);
    assert.equal((await agent.get('/dev/mailbox/mail_ZZZZZZZZZZZZZZZZZZZZZZZZ')).statusCode, 404);
    assert.equal(
      (await agent.get('/password-reset/NoSuchToken0123456789abcdefghijklmnopqrstu')).statusCode,
      404,
    );
  });
});
