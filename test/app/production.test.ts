// In production without SMTP_URL: no development mailbox (404), and the password reset page says
// reset by email is not set up instead of pretending to send.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { makePartner, startHarness, type Harness } from '../helpers/harness.ts';
import { Agent, makeMember, textOf } from './app-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness({ env: { NODE_ENV: 'production' } });
});
after(() => h.close());

test('the development mailbox is not served in production', async () => {
  const agent = new Agent(h);
  assert.equal((await agent.get('/dev/mailbox')).statusCode, 404);
  assert.equal((await agent.get('/dev/mailbox/mail_ZZZZZZZZZZZZZZZZZZZZZZZZ')).statusCode, 404);
});

test('password reset says it is not set up, and sends nothing', async () => {
  const member = await makeMember(h, (await makePartner(h)).organizationId, 'owner');
  const agent = new Agent(h);
  const page = await agent.get('/password-reset');
  assert.equal(page.statusCode, 200);
  assert.match(textOf(page.body), /Password reset by email is not set up/);
  assert.ok(!page.body.includes('Send reset link'));
  await agent.get('/sign-in'); // a form with the double-submit token
  const res = await agent.post('/password-reset', { email: member.email });
  assert.equal(res.statusCode, 200);
  assert.match(textOf(res.body), /not set up/);
});
