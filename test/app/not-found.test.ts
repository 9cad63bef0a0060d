// Unknown paths of the APP host: an HTML page with the app's security headers (and its header
// when signed in); under /admin/ the operator's API keeps its JSON envelope.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { Agent, makeMember, makeOrganization, signIn, textOf } from './app-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness();
});
after(() => h.close());

test('a signed-out visitor gets the HTML not-found page with a way to sign in', async () => {
  const res = await new Agent(h).get('/no/such/page');
  assert.equal(res.statusCode, 404);
  assert.match(String(res.headers['content-type']), /^text\/html/);
  assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
  assert.equal(res.headers['x-frame-options'], 'DENY');
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.match(textOf(res.body), /Page not found/);
  assert.match(res.body, /href="\/sign-in"/);
});

test('a signed-in member sees the page inside the app, with the navigation', async () => {
  const org = await makeOrganization(h);
  const agent = await signIn(h, await makeMember(h, org.id, 'viewer'));
  const res = await agent.post('/developers/nothing-here', {});
  assert.equal(res.statusCode, 404);
  assert.match(textOf(res.body), /Page not found/);
  assert.match(textOf(res.body), /Developer settings/);
  assert.match(textOf(res.body), /Sign out/);
});

test('an unknown admin API path answers in the JSON envelope', async () => {
  const res = await new Agent(h).get('/admin/v1/no-such-thing');
  assert.equal(res.statusCode, 404);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = JSON.parse(res.body) as { error_code: string; code: number };
  assert.equal(body.error_code, 'not_found');
  assert.equal(body.code, 404);
});
