// The context's services are fields set at start: a context lacking one is refused where it is
// built, by the type check (a context without a field does not compile; typecheck covers test/)
// and at start by checkContext (a field given as undefined, which a cast hides from the type check).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AppContext } from '../../src/context.ts';
import { checkContext } from '../../src/service.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

test('a started service has every service on its context; metrics are null without METRICS_PORT', () => {
  const { ctx } = h.service;
  assert.doesNotThrow(() => checkContext(ctx));
  assert.equal(ctx.metrics, null);
  for (const field of [
    'overload',
    'outage',
    'gateway',
    'mailer',
    'requestLog',
    'orderBatches',
    'webhooks',
  ] as const) {
    assert.ok(ctx[field], field);
  }
});

test('a context built without a service does not compile, and is refused at start', () => {
  const { mailer: _left, ...rest } = h.service.ctx;
  // @ts-expect-error mailer is a required field: a context without it is refused where it is built
  const ctx: AppContext = rest;
  assert.throws(() => checkContext(ctx), /^Error: the service's context lacks mailer$/);
});

test('services given as undefined are refused at start, each named', () => {
  const ctx = { ...h.service.ctx, gateway: undefined, requestLog: undefined } as unknown as AppContext;
  assert.throws(() => checkContext(ctx), /^Error: the service's context lacks gateway, requestLog$/);
});

test('metrics may be null; no other service may', () => {
  assert.doesNotThrow(() => checkContext({ ...h.service.ctx, metrics: null }));
  const ctx = { ...h.service.ctx, webhooks: null } as unknown as AppContext;
  assert.throws(() => checkContext(ctx), /lacks webhooks/);
});
