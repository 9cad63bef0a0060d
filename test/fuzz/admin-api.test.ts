// Seeded property-based fuzz over every admin API route (APP host, /admin/v1): bodies from each
// route's own schema (valid-looking and mutated), hostile path parameters and query strings, and
// every kind of credential. No answer may be a 5xx; every one carries X-Request-Id; every 4xx is
// the error envelope. FUZZ_SEED and FUZZ_RUNS: see test/fuzz/README.md.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { registerAdminRoutes } from '../../src/admin/admin.routes.ts';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import { createHost } from '../../src/platform/http.ts';
import { eventBody } from '../admin/admin-helpers.ts';
import {
  fillPath,
  ID_PREFIX,
  makeAdminObjects,
  paramsOf,
  type AdminObjectKind,
  type AdminObjects,
} from '../helpers/admin-world.ts';
import { getToken, resolveNoNames, startHarness, TEST_ADMIN_KEY, type Harness } from '../helpers/harness.ts';
import { registeredRoutes } from '../helpers/registered-routes.ts';
import {
  EDGE_DATES,
  FUZZ_RUNS,
  fuzz,
  headerText,
  hostileSegment,
  hostileString,
  payloadFor,
  queryFor,
  sometimes,
  splitRuns,
  toJson,
  validFromSchema,
  type FieldHints,
  type FuzzRequest,
  type JsonSchema,
} from './fuzz-kit.ts';

/** This file's share of the suite's inputs (the partner API fuzz takes the other half). */
const RUNS = Math.ceil(FUZZ_RUNS / 2);
const MAX_INT = 2_147_483_647;

let h: Harness;
let mine: AdminObjects;
let theirs: AdminObjects;
let partnerToken: string;

interface AdminRoute {
  name: string;
  method: string;
  url: string;
  schema: { body?: JsonSchema; querystring?: JsonSchema };
}

/**
 * Every admin route with its schemas, from an onRoute hook on a second APP host built the same
 * way (the service's own hosts are already built; Fastify exposes schemas only to that hook).
 */
async function collectAdminRoutes(): Promise<AdminRoute[]> {
  const routes: AdminRoute[] = [];
  const host = createHost(h.service.ctx, { name: 'app', logger: h.service.ctx.log });
  host.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD' || !route.url.startsWith('/admin/v1')) continue;
      routes.push({
        name: `${method} ${route.url}`,
        method,
        url: route.url,
        schema: (route.schema ?? {}) as AdminRoute['schema'],
      });
    }
  });
  await registerAdminRoutes(host, h.service.ctx);
  await host.ready();
  await host.close();
  return routes;
}

before(async () => {
  h = await startHarness({ service: { webhookResolver: resolveNoNames } });
  mine = await makeAdminObjects(h);
  theirs = await makeAdminObjects(h);
  partnerToken = await getToken(h, mine.partner);
});
after(() => h.close());

// ---------------------------------------------------------------------------------------------
// Generators

const randomId = (prefix: string) =>
  fc
    .string({
      unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'),
      minLength: 24,
      maxLength: 24,
    })
    .map((s) => `${prefix}_${s}`);

function idOf(kind: AdminObjectKind | undefined): fc.Arbitrary<string> {
  if (!kind)
    return fc.oneof(
      hostileSegment,
      fc.constant(null).map(() => mine.organization),
    );
  return fc.oneof(
    { weight: 10, arbitrary: fc.constant(null).map(() => mine[kind]) },
    { weight: 1, arbitrary: fc.constant(null).map(() => theirs[kind]) },
    { weight: 1, arbitrary: randomId(ID_PREFIX[kind]) },
    { weight: 1, arbitrary: fc.constant(null).map(() => mine.event) },
    { weight: 3, arbitrary: hostileSegment },
  );
}

function pathFor(template: string): fc.Arbitrary<string> {
  const params = paramsOf(template);
  return fc
    .tuple(...params.map((p) => idOf(p.kind)))
    .map((values) => fillPath(template, (p) => values[params.findIndex((q) => q.index === p.index)]!));
}

const goodOrigins = fc.constantFrom(
  'https://shop.example.org',
  'http://localhost:5173',
  'http://127.0.0.1:8080',
  'https://bücher.example',
);
const origins = fc.constantFrom(
  'https://shop.example.org',
  'http://localhost:5173',
  'http://127.0.0.1:8080',
  'https://shop.example.org/',
  'https://shop.example.org/path',
  'https://bücher.example',
  'https://xn--bcher-kva.example',
  'http://shop.example.org',
  'https://shop.example.org:99999',
  'null',
  '*',
  'javascript:alert(1)',
);
const webhookUrls = fc.constantFrom(
  'https://hooks.example.invalid/in',
  'https://hooks.example.invalid/€',
  'https://bücher.example.invalid/in',
  `https://hooks.example.invalid/${'a'.repeat(3000)}`,
  'https://user:pw@hooks.example.invalid/',
  'https://hooks.example.invalid/#frag',
  'https://localhost/in',
  'http://127.0.0.1:9/in',
  'ftp://hooks.example.invalid/',
  'hooks.example.invalid',
);
const DAY = 24 * 3600 * 1000;
const dateNear = (days: number) =>
  fc.constant(null).map(() => new Date(h.clock.now().getTime() + days * DAY).toISOString());

/** Mostly sensible dates around now, sometimes far off, sometimes at the edges of what is stored. */
const dates = fc.oneof(
  { weight: 4, arbitrary: fc.oneof(dateNear(-1), dateNear(10), dateNear(30)) },
  { weight: 1, arbitrary: fc.oneof(dateNear(-4000), dateNear(3_000_000)) },
  { weight: 2, arbitrary: fc.constantFrom(...EDGE_DATES) },
);

const hints: FieldHints = (field) => {
  switch (field) {
    case 'allowed_domains':
    case 'return_url_domains':
      return fc.array(origins, { maxLength: 4 });
    case 'scopes':
      return fc.subarray([...ALL_SCOPES, 'admin', 'events:write']);
    case 'url':
      return webhookUrls;
    case 'events':
      return fc.array(fc.constantFrom('order.paid', 'order.refunded', 'test', '*'), {
        minLength: 1,
        maxLength: 3,
      });
    case 'timezone':
      return fc.constantFrom(
        'Africa/Kampala',
        'UTC',
        'Etc/GMT+12',
        'Mars/Olympus',
        '../../etc/passwd',
        'Africa/Kampala\u0000',
      );
    case 'currency':
      return fc.constantFrom('UGX', 'KES', 'USD', 'XXX', 'BHD');
    case 'starts_at':
    case 'ends_at':
    case 'reg_opens_at':
    case 'reg_closes_at':
    case 'sales_start':
    case 'sales_end':
      return dates;
    case 'support_email':
      return fc.constantFrom('help@example.org', '', 'HELP@EXÄMPLE.ORG', 'a@b.c');
    case 'email':
      return fc.constantFrom(
        'owner@example.org',
        ' Owner@Example.org ',
        '',
        'OWNER@EXÄMPLE.ORG',
        'a@b',
        'no-at',
      );
    default:
      return undefined;
  }
};

/** Known-good bodies, so that mutations start from something that gets past validation. */
function examples(route: string): fc.Arbitrary<unknown> | undefined {
  const price = fc.oneof(
    fc.integer({ min: 0, max: 100_000 }),
    fc.constantFrom(0, 1, 999_999_999, 1_000_000_000, MAX_INT),
  );
  const capacity = fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.constantFrom(1, MAX_INT));
  const ticketType = fc.record(
    {
      name: fc.constantFrom('Half marathon', '10 km', 'Kids 🏃'),
      price_minor: price,
      capacity,
      distance_km: fc.constantFrom(0, 5, 21.0975, 1000),
      min_age: fc.constantFrom(0, 16, 120),
      description: fc.constantFrom('', 'Route along the lake.'),
    },
    { requiredKeys: ['name', 'price_minor', 'capacity'] },
  );
  // one date from `dates` now and then; the rest of a body keeps its sensible dates
  const withDate = (body: fc.Arbitrary<Record<string, unknown>>, fields: string[]) =>
    fc
      .tuple(body, sometimes(fc.tuple(fc.constantFrom(...fields), dates), 1, 3))
      .map(([b, date]) => (date ? { ...b, [date[0]]: date[1] } : b));
  switch (route) {
    case 'POST /admin/v1/organizations':
    case 'PATCH /admin/v1/organizations/:id':
      return fc.record(
        {
          name: fc.constantFrom('Lake Runners', 'Ñandú Club', 'x'.repeat(200)),
          payments_enabled: fc.boolean(),
          support_email: fc.constantFrom('help@example.org', ''),
          fees: fc.record(
            {
              momo: fc.record({
                percent_bp: fc.constantFrom(0, 350, 10000),
                fixed_minor: fc.constantFrom(0, 500, MAX_INT),
              }),
              airtel: fc.record({
                percent_bp: fc.constantFrom(0, 250),
                fixed_minor: fc.constantFrom(0, 300),
              }),
            },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: route.startsWith('POST') ? ['name'] : [] },
      );
    case 'POST /admin/v1/organizations/:id/events':
      return withDate(
        fc.tuple(fc.array(ticketType, { maxLength: 4 }), fc.boolean()).map(([ticket_types, extras]) =>
          eventBody(h, {
            ticket_types,
            ...(extras && {
              waiver_required: true,
              waiver_version: '2026-1',
              waiver_text: 'I run at my own risk.',
              additional_questions: [{ key: 'shirt', label: 'Shirt', type: 'select', options: ['S', 'M'] }],
            }),
          }),
        ),
        ['starts_at', 'ends_at', 'reg_opens_at', 'reg_closes_at'],
      );
    case 'PATCH /admin/v1/events/:id':
      return fc.oneof(
        fc.constantFrom(
          { name: 'Renamed run' },
          { status: 'closed' },
          { status: 'open' },
          { visibility: 'unlisted' },
          { currency: 'KES' },
          { waiver_required: true, waiver_version: '2', waiver_text: 'At my own risk.' },
        ),
        fc
          .tuple(fc.constantFrom('starts_at', 'ends_at', 'reg_opens_at', 'reg_closes_at'), dates)
          .map(([k, d]) => ({ [k]: d })),
      );
    case 'POST /admin/v1/events/:id/ticket-types':
      return withDate(ticketType, ['sales_start', 'sales_end']);
    case 'PATCH /admin/v1/ticket-types/:id':
      return withDate(fc.record({ price_minor: price, capacity }, { requiredKeys: [] }), [
        'sales_start',
        'sales_end',
      ]);
    case 'POST /admin/v1/organizations/:id/clients':
    case 'PATCH /admin/v1/clients/:client_id':
      return fc.record(
        {
          name: fc.constantFrom('Club site', 'Kampala Runners'),
          scopes: fc.subarray([...ALL_SCOPES]),
          allowed_domains: fc.array(goodOrigins, { maxLength: 3 }),
          return_url_domains: fc.array(goodOrigins, { maxLength: 3 }),
        },
        { requiredKeys: route.startsWith('POST') ? ['name', 'scopes'] : [] },
      );
    case 'POST /admin/v1/organizations/:id/webhook-endpoints':
    case 'PATCH /admin/v1/webhook-endpoints/:id':
      return fc.record(
        { url: webhookUrls, events: fc.constant(['order.paid']) },
        { requiredKeys: route.startsWith('POST') ? ['url'] : [] },
      );
    default:
      return undefined;
  }
}

type Credential =
  | 'admin'
  | 'admin-odd-spacing'
  | 'none'
  | 'wrong-key'
  | 'partner-bearer'
  | 'publishable'
  | 'publishable-origin'
  | 'partner-basic'
  | 'garbage';

const credentials = fc.tuple(
  fc.oneof(
    ...(
      [
        ['admin', 24],
        ['admin-odd-spacing', 1],
        ['none', 1],
        ['wrong-key', 1],
        ['partner-bearer', 1],
        ['publishable', 1],
        ['publishable-origin', 1],
        ['partner-basic', 1],
        ['garbage', 1],
      ] as Array<[Credential, number]>
    ).map(([kind, weight]) => ({ weight, arbitrary: fc.constant(kind) })),
  ),
  headerText,
);

function credentialHeaders([kind, junk]: [Credential, string]): Record<string, string> {
  switch (kind) {
    case 'admin':
      return { authorization: `Bearer ${TEST_ADMIN_KEY}` };
    case 'admin-odd-spacing':
      return { authorization: `bearer   ${TEST_ADMIN_KEY}  ` };
    case 'none':
      return {};
    case 'wrong-key':
      return { authorization: `Bearer ${TEST_ADMIN_KEY.slice(0, -1)}x` };
    case 'partner-bearer':
      return { authorization: `Bearer ${partnerToken}` };
    case 'publishable':
      return {
        authorization: `Bearer ${TEST_ADMIN_KEY}`,
        'x-service-publishable-key': mine.partner.publishableKey,
      };
    case 'publishable-origin':
      return { 'x-service-publishable-key': mine.partner.publishableKey, origin: 'https://shop.example.org' };
    case 'partner-basic':
      return {
        authorization: `Basic ${Buffer.from(`${mine.partner.clientId}:${mine.partner.clientSecret}`).toString('base64')}`,
      };
    case 'garbage':
      return { authorization: junk.length % 2 ? `Bearer ${junk}` : junk };
  }
}

function queryValue(schema: JsonSchema | undefined, name: string): fc.Arbitrary<string> {
  if (name === 'limit') return fc.constantFrom('1', '20', '50', '51', '0', '-1', '2147483648', '1.5', 'abc');
  if (name === 'cursor') return fc.oneof(hostileString, fc.constant('eyJhIjoxfQ'));
  return validFromSchema(schema ?? {}, hints).map((v) => (typeof v === 'string' ? v : toJson(v)));
}

function requestsFor(route: AdminRoute): fc.Arbitrary<FuzzRequest> {
  const query = route.schema.querystring?.properties ?? {};
  const body = route.schema.body;
  const example = examples(route.name);
  const valid = body
    ? example
      ? fc.oneof({ weight: 3, arbitrary: example }, { weight: 1, arbitrary: validFromSchema(body, hints) })
      : validFromSchema(body, hints)
    : undefined;
  return fc
    .record({
      path: pathFor(route.url),
      query: queryFor(Object.keys(query), (name) => queryValue(query[name], name)),
      credential: credentials,
      payload: valid ? payloadFor(valid) : fc.constant({ contentType: undefined, text: undefined }),
    })
    .map(({ path, query: qs, credential, payload }) => ({
      method: route.method,
      url: path + qs,
      headers: {
        ...credentialHeaders(credential),
        ...(payload.contentType !== undefined && { 'content-type': payload.contentType }),
      },
      ...(payload.text !== undefined && { payload: payload.text }),
    }));
}

/**
 * Any method on paths of the admin API, known or not. Paths outside /admin belong to the organizer
 * app, which answers in HTML (test/app/not-found.test.ts and routes.test.ts cover those).
 */
const strayRequests: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
    path: fc.oneof(
      fc.constantFrom(
        '/admin',
        '/admin/v1',
        '/admin/v1/',
        '/admin/v2/organizations',
        '/ADMIN/V1/ORGANIZATIONS',
        '/admin/v1/organizations/',
        '//admin/v1/organizations',
      ),
      fc.array(hostileSegment, { minLength: 1, maxLength: 4 }).map((s) => `/admin/v1/${s.join('/')}`),
    ),
    credential: credentials,
  })
  .map(({ method, path, credential }) => ({ method, url: path, headers: credentialHeaders(credential) }));

function send(request: FuzzRequest) {
  return h.service.app.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: request.headers,
    ...(request.payload !== undefined && { payload: request.payload }),
  });
}

/** Routes that take objects away (revoke, delete, disable) go last, so the others find them. */
function destructiveLast(a: AdminRoute, b: AdminRoute): number {
  const rank = (r: AdminRoute) =>
    r.method === 'DELETE'
      ? 2
      : /\/(revoke|disable|rotate-secret|regenerate-publishable-key)$/.test(r.url)
        ? 1
        : 0;
  return rank(a) - rank(b);
}

describe('fuzz over the admin API', () => {
  test('every admin route keeps its envelope and never answers 5xx', async (t) => {
    const routes = (await collectAdminRoutes()).sort(destructiveLast);
    assert.deepEqual(
      routes.map((r) => r.name).sort(),
      registeredRoutes(h.service.app, '/admin/v1'),
      'the routes whose schemas were collected are the ones the APP host serves',
    );
    const targets = [
      // the more fields a body has, the more inputs it takes to reach each of them
      ...routes.map((route) => ({
        route,
        name: route.name,
        weight: 1 + Math.min(4, Object.keys(route.schema.body?.properties ?? {}).length / 2),
      })),
      { route: undefined, name: 'stray requests', weight: 1 },
    ];
    const runs = splitRuns(targets, RUNS);
    for (const target of targets) {
      await t.test(target.name, async () => {
        await fuzz(
          target.name,
          target.route ? requestsFor(target.route) : strayRequests,
          runs.get(target)!,
          send,
        );
      });
    }
  });
});
