// The demo organization's owner (seeded on a first start) gets into the organizer app through the
// invitation link the start prints: a password chosen there signs them in as owner.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedDemo } from '../../src/demo/seed-demo.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { Agent, locationOf, textOf } from './app-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness();
});
after(() => h.close());

test("the demo owner's invitation link lets them choose a password and sign in as owner", async () => {
  const demo = await seedDemo(h.service.ctx, null);
  assert.ok(demo, 'seeded into the empty database');
  const url = new URL(demo.owner_invitation_url);
  assert.equal(url.origin, h.config.appUrl.origin);
  const agent = new Agent(h);
  const page = await agent.get(url.pathname);
  assert.equal(page.statusCode, 200);
  assert.match(textOf(page.body), /Demo Running Club/);
  const accepted = await agent.post(url.pathname, { password: 'the demo owner password' });
  assert.equal(accepted.statusCode, 303, accepted.body.slice(0, 300));
  assert.equal(locationOf(accepted), '/');
  const overview = await agent.get('/');
  assert.match(textOf(overview.body), /with the role owner/);
  const developers = await agent.get('/developers');
  assert.match(textOf(developers.body), /Demo partner/);
});
