// No input reaches a 500: hostile ids, bodies and text on every admin route.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../helpers/harness.ts';
import {
  admin,
  createClientFor,
  createEventFor,
  createOrg,
  dataOf,
  errorOf,
  eventBody,
  type AdminRequest,
} from './admin-helpers.ts';

let h: Harness;
let org: Record<string, string>;
let event: Record<string, string>;
let ttId: string;
let clientId: string;

before(async () => {
  h = await startHarness();
  org = await createOrg(h);
  const created = await createEventFor(h, org.id!);
  event = created;
  ttId = created.ticket_types[0].ticket_type_id;
  clientId = (await createClientFor(h, org.id!)).client_id;
});
after(() => h.close());

/** Every route with an id in its path, the id replaced by `id`. */
function routesWithId(id: string): AdminRequest[] {
  return [
    { url: `/organizations/${id}` },
    { method: 'PATCH', url: `/organizations/${id}`, body: { name: 'x' } },
    { method: 'POST', url: `/organizations/${id}/events`, body: eventBody(h) },
    { url: `/organizations/${id}/events` },
    { url: `/events/${id}` },
    { method: 'PATCH', url: `/events/${id}`, body: { name: 'x' } },
    { method: 'POST', url: `/events/${id}/ticket-types`, body: { name: 'x', price_minor: 0, capacity: 1 } },
    { method: 'PATCH', url: `/ticket-types/${id}`, body: { capacity: 1 } },
    { method: 'POST', url: `/organizations/${id}/clients`, body: { name: 'x', scopes: [] } },
    { url: `/organizations/${id}/clients` },
    { url: `/clients/${id}` },
    { method: 'PATCH', url: `/clients/${id}`, body: { name: 'x' } },
    { method: 'POST', url: `/clients/${id}/revoke` },
    { method: 'POST', url: `/clients/${id}/rotate-secret` },
    { method: 'POST', url: `/clients/${id}/regenerate-publishable-key` },
  ];
}

describe('admin API robustness', () => {
  test('hostile path ids are 404 not_found on every route, never 500', async () => {
    const ids = [
      'x'.repeat(10_000),
      `org_${'A'.repeat(150)}`,
      'org_%00AAAAAAAAAAAAAAAAAAAAAAAA',
      'cli_%00AAAAAAAAAAAAAAAAAAAAAAAA',
      '%F0%9F%8F%83%E2%80%8D%E2%99%80%EF%B8%8F',
      '%FF%FE',
      '%E2%80%AEevt_AAAAAAAAAAAAAAAAAAAAAAAA',
      "org_1'%20OR%20'1'='1",
      '..%2F..%2Fetc%2Fpasswd',
      '%20',
    ];
    for (const id of ids) {
      for (const route of routesWithId(id)) {
        const res = await admin(h, route);
        errorOf(res, 404, 'not_found');
      }
    }
  });

  test('malformed bodies are 400 validation_failed on every route that takes one', async () => {
    const targets = [
      { method: 'POST' as const, url: '/organizations' },
      { method: 'PATCH' as const, url: `/organizations/${org.id}` },
      { method: 'POST' as const, url: `/organizations/${org.id}/events` },
      { method: 'PATCH' as const, url: `/events/${event.event_id}` },
      { method: 'POST' as const, url: `/events/${event.event_id}/ticket-types` },
      { method: 'PATCH' as const, url: `/ticket-types/${ttId}` },
      { method: 'POST' as const, url: `/organizations/${org.id}/clients` },
      { method: 'PATCH' as const, url: `/clients/${clientId}` },
      { method: 'POST' as const, url: `/clients/${clientId}/rotate-secret` },
    ];
    const payloads = [
      '{not json',
      '[]',
      'null',
      '"text"',
      '42',
      '{"a":',
      '['.repeat(20_000),
      '{"__proto__":{"x":1}}',
    ];
    for (const target of targets) {
      for (const payload of payloads) {
        const res = await admin(h, { ...target, payload, headers: { 'content-type': 'application/json' } });
        errorOf(res, 400, 'validation_failed');
      }
    }
  });

  test('text PostgreSQL cannot store (NUL) or would garble (lone surrogates) is refused with the field named', async () => {
    const nul = await admin(h, {
      method: 'POST',
      url: `/organizations/${org.id}/events`,
      body: eventBody(h, { name: 'Run\u0000' }),
    });
    const nulBody = errorOf(nul, 400, 'validation_failed');
    assert.equal(nulBody.errors!.length, 1);
    assert.match(nulBody.errors![0]!.field, /(^|\.)name$/);
    assert.match(nulBody.errors![0]!.message, /NUL/);
    const patch = await admin(h, {
      method: 'PATCH',
      url: `/organizations/${org.id}`,
      body: { name: '\u0000' },
    });
    assert.match(errorOf(patch, 400, 'validation_failed').errors![0]!.field, /(^|\.)name$/);

    const broken = await admin(h, {
      method: 'POST',
      url: `/organizations/${org.id}/events`,
      body: eventBody(h, {
        name: 'Run \udc00',
        additional_questions: [{ key: 'club', label: 'Club', type: 'select', options: ['A', 'B\ud800'] }],
      }),
    });
    assert.deepEqual(
      errorOf(broken, 400, 'validation_failed')
        .errors!.map((e) => `${e.field} ${e.message}`)
        .sort(),
      ['additional_questions[0].options[1] must be valid Unicode text', 'name must be valid Unicode text'],
    );
    const list = dataOf(await admin(h, { url: `/organizations/${org.id}/events` }), 200);
    assert.equal(list.events.length, 1, 'only the event made in before()');
  });

  test('keeps any valid Unicode as given', async () => {
    const name = 'Mbarara 🏃‍♀️ Ŕun — 東京 عربى \u202e';
    const created = await createOrg(h, { name });
    assert.equal(created.name, name);
    assert.equal(dataOf(await admin(h, { url: `/organizations/${created.id}` }), 200).name, name);
  });

  test('numbers outside what the database holds are refused, and strings are not coerced', async () => {
    const res = await admin(h, {
      method: 'POST',
      url: `/events/${event.event_id}/ticket-types`,
      body: { name: 'x', price_minor: 1e12, capacity: '5', distance_km: 1e308, min_age: 1.5 },
    });
    const body = errorOf(res, 400, 'validation_failed');
    assert.deepEqual(body.errors!.map((e) => e.field).sort(), [
      'capacity',
      'distance_km',
      'min_age',
      'price_minor',
    ]);
  });

  test('refuses other content types with 415 and oversized bodies with 413', async () => {
    const text = await admin(h, {
      method: 'POST',
      url: '/organizations',
      payload: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    errorOf(text, 415, 'unsupported_media_type');
    const big = await admin(h, {
      method: 'POST',
      url: '/organizations',
      body: { name: 'x'.repeat(70 * 1024) },
    });
    errorOf(big, 413, 'payload_too_large');
  });

  test('unknown admin routes are 404 not_found in the envelope', async () => {
    errorOf(await admin(h, { url: '/nothing-here' }), 404, 'not_found');
    errorOf(await admin(h, { method: 'DELETE', url: `/organizations/${org.id}` }), 404, 'not_found');
  });
});
