// Seeded property-based fuzz over every route of the partner API's OpenAPI document: bodies from
// each route's schema (valid-looking and mutated), hostile path parameters and query strings, and
// every kind of credential. No answer may be a 5xx; every one carries X-Request-Id; every 4xx is
// the error envelope (the token endpoint's, the OAuth error shape). FUZZ_SEED and FUZZ_RUNS: see
// test/fuzz/README.md.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  bearer,
  getToken,
  makeEvent,
  makePartner,
  startHarness,
  TEST_ADMIN_KEY,
  type Harness,
  type TestPartner,
} from '../helpers/harness.ts';
import {
  FUZZ_RUNS,
  fuzz,
  headerText,
  hostileSegment,
  hostileString,
  mutated,
  payloadFor,
  queryFor,
  sometimes,
  splitRuns,
  toJson,
  validFromSchema,
  type Answer,
  type FieldHints,
  type FuzzRequest,
  type JsonSchema,
} from './fuzz-kit.ts';

/** This file's share of the suite's inputs (the admin API fuzz takes the other half). */
const RUNS = Math.ceil(FUZZ_RUNS / 2);
const ORIGIN = 'https://shop.example.org';
const DAY = 24 * 3600 * 1000;

let h: Harness;
let owner: TestPartner;
let stranger: TestPartner;
const tokens: Record<'owner' | 'narrow' | 'stranger', string> = { owner: '', narrow: '', stranger: '' };
const pools = {
  events: [] as string[],
  /** ticket type ids of each of the owner's events, in the order of `events` */
  ticketTypesOf: [] as string[][],
  strangerEvents: [] as string[],
  ticketTypes: [] as string[],
  strangerTicketTypes: [] as string[],
  sessions: [] as string[],
  strangerSessions: [] as string[],
  orders: [] as string[],
  strangerOrders: [] as string[],
  eventCursors: [] as string[],
  orderCursors: [] as string[],
};

interface Operation {
  method: string;
  path: string;
  parameters?: Array<{ in: string; name: string; schema: JsonSchema }>;
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  security?: Array<Record<string, unknown>>;
}

async function api(method: 'GET' | 'POST', url: string, token: string, payload?: Record<string, unknown>) {
  const res = await h.service.api.inject({
    method,
    url,
    headers: bearer(token),
    ...(payload !== undefined && { payload }),
  });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json().data;
}

function orderBody(eventId: string, ticketTypeId: string) {
  return {
    event_id: eventId,
    items: [{ ticket_type_id: ticketTypeId, participant_name: 'Ann' }],
    buyer: { name: 'Ann', email: 'ann@example.org', phone: '0772123456' },
  };
}

before(async () => {
  const unlimited = { RATE: '1000000', BURST: '1000000' };
  h = await startHarness({
    env: Object.fromEntries(
      ['RATE_LIMIT_BEARER', 'RATE_LIMIT_PUBLISHABLE', 'RATE_LIMIT_TOKEN'].flatMap((p) =>
        Object.entries(unlimited).map(([k, v]) => [`${p}_${k}`, v]),
      ),
    ),
  });
  owner = await makePartner(h, { allowedDomains: [ORIGIN], returnUrlDomains: [ORIGIN] });
  stranger = await makePartner(h);
  const now = h.clock.now().getTime();
  const big = {
    ticket_types: [
      { name: '10 km', price_minor: 30000, capacity: 1_000_000, distance_km: 10 },
      { name: '5 km', price_minor: 0, capacity: 1_000_000, distance_km: 5 },
      { name: 'Kids', price_minor: 1000, capacity: 1_000_000, distance_km: 2, min_age: 8 },
    ],
    additional_questions: [
      {
        key: 'shirt',
        label: 'Shirt size',
        type: 'select' as const,
        required: false,
        options: ['S', 'M'],
        help: '',
      },
    ],
  };
  for (const [partner, pool] of [
    [owner, pools.events],
    [owner, pools.events],
    [stranger, pools.strangerEvents],
  ] as const) {
    pool.push((await makeEvent(h, partner, big)).id);
  }
  // an event not on sale yet
  pools.events.push(
    (await makeEvent(h, owner, { ...big, reg_opens_at: new Date(now + 2 * DAY).toISOString() })).id,
  );
  // the dearest ticket the catalogue takes (the largest integer price, or the highest a ceiling
  // allows), so that totals of many tickets and fees meet the largest numbers an order can carry
  for (const price of [2 ** 31 - 1, 1_000_000_000, 100_000_000, 10_000_000]) {
    const dear = { name: 'Elite', price_minor: price, capacity: 1_000_000, distance_km: 42 };
    const created = await makeEvent(h, owner, { ...big, ticket_types: [dear, ...big.ticket_types] }).catch(
      () => null,
    );
    if (created) {
      pools.events.push(created.id);
      break;
    }
  }
  assert.equal(pools.events.length, 4, 'an event with the dearest ticket price accepted');
  tokens.owner = await getToken(h, owner);
  tokens.narrow = await getToken(h, owner, 'events:read');
  tokens.stranger = await getToken(h, stranger);
  for (const id of pools.events) {
    const detail = await api('GET', `/v1/events/${id}`, tokens.owner);
    const own = detail.ticket_types.map((t: { ticket_type_id: string }) => t.ticket_type_id) as string[];
    pools.ticketTypesOf.push(own);
    pools.ticketTypes.push(...own);
  }
  const strangerDetail = await api('GET', `/v1/events/${pools.strangerEvents[0]}`, tokens.stranger);
  pools.strangerTicketTypes.push(strangerDetail.ticket_types[0].ticket_type_id);
  pools.sessions.push(
    (
      await api('POST', '/v1/checkout-sessions', tokens.owner, {
        event_id: pools.events[0],
        on_success_url: `${ORIGIN}/ok`,
        on_cancel_url: `${ORIGIN}/no`,
      })
    ).id,
  );
  for (let i = 0; i < 2; i++) {
    pools.orders.push(
      (await api('POST', '/v1/orders', tokens.owner, orderBody(pools.events[0]!, pools.ticketTypes[0]!))).id,
    );
  }
  pools.strangerSessions.push(
    (
      await api('POST', '/v1/checkout-sessions', tokens.stranger, {
        event_id: pools.strangerEvents[0]!,
        on_success_url: `${ORIGIN}/ok`,
        on_cancel_url: `${ORIGIN}/no`,
      })
    ).id,
  );
  pools.strangerOrders.push(
    (
      await api(
        'POST',
        '/v1/orders',
        tokens.stranger,
        orderBody(pools.strangerEvents[0]!, pools.strangerTicketTypes[0]!),
      )
    ).id,
  );
  pools.eventCursors.push((await api('GET', '/v1/events?limit=1', tokens.owner)).next_cursor);
  pools.orderCursors.push((await api('GET', '/v1/orders?limit=1', tokens.owner)).next_cursor);
});
after(() => h.close());

// ---------------------------------------------------------------------------------------------
// Generators

const pick = (values: string[]) => fc.constantFrom(...values);
const randomId = (prefix: string) =>
  fc
    .string({
      unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'),
      minLength: 24,
      maxLength: 24,
    })
    .map((s) => `${prefix}_${s}`);

/** Ids for a field or path parameter: the owner's mostly, the stranger's, another kind, made up. */
function idsFor(own: () => string[], theirs: () => string[], prefix: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(null).chain(() => pick(own())) },
    { weight: 1, arbitrary: fc.constant(null).chain(() => pick(theirs())) },
    {
      weight: 1,
      arbitrary: fc.constant(null).chain(() => pick([...pools.orders, ...pools.sessions, ...pools.events])),
    },
    { weight: 1, arbitrary: randomId(prefix) },
  );
}

const eventIds = idsFor(
  () => pools.events,
  () => pools.strangerEvents,
  'evt',
);
const ticketTypeIds = idsFor(
  () => pools.ticketTypes,
  () => pools.strangerTicketTypes,
  'tt',
);
const orderIds = idsFor(
  () => pools.orders,
  () => pools.strangerOrders,
  'ord',
);
const sessionIds = idsFor(
  () => pools.sessions,
  () => pools.strangerSessions,
  'cs',
);

const returnUrls = fc.constantFrom(
  `${ORIGIN}/ok`,
  `${ORIGIN}/thanks?session_id={CHECKOUT_SESSION_ID}`,
  `${ORIGIN}/%7BCHECKOUT_SESSION_ID%7D?session_id=x`,
  `${ORIGIN}/€`,
  `${ORIGIN}/ünï?q=ü#frag`,
  `${ORIGIN}/a b`,
  `${ORIGIN}/\u202Eevil`,
  `${ORIGIN}/%E2%82%AC`,
  `${ORIGIN}/%`,
  `${ORIGIN}/\uD800`,
  `${ORIGIN}:443/x`,
  `${ORIGIN}/${'a'.repeat(2030)}`,
  `${ORIGIN}/${'é'.repeat(1100)}`,
  'https://SHOP.example.org/x',
  'https://shöp.example.org/',
  'https://shop.example.org.evil.example/x',
  'http://shop.example.org/x',
  'https://user:pass@shop.example.org/',
  '//shop.example.org/x',
  'javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'https://[::1]/',
  'http://localhost:3000/x',
);
/** Return URLs the owner's client accepts, some of them with non-ASCII text. */
const goodReturnUrls = fc.constantFrom(
  `${ORIGIN}/ok`,
  `${ORIGIN}/thanks?session_id={CHECKOUT_SESSION_ID}`,
  `${ORIGIN}/€`,
  `${ORIGIN}/ünï?q=ü#frag`,
  `${ORIGIN}/%E2%82%AC`,
);
const origins = fc.constantFrom(
  ORIGIN,
  `${ORIGIN}/`,
  'https://evil.example',
  'http://localhost:3000',
  'https://shöp.example.org',
  'null',
  '*',
  'https://shop.example.org:99999',
);
const phones = fc.constantFrom(
  '0772123456',
  '0770000001',
  '0770000003',
  '0700000001',
  '+256772123456',
  '256772123456',
  '077 212 3456',
  '٠٧٧٢١٢٣٤٥٦',
  '0',
  '+'.repeat(32),
  '1'.repeat(32),
);
const emails = fc.constantFrom(
  'ann@example.org',
  'ANN@EXAMPLE.ORG',
  'ann@exämple.org',
  'a@b',
  '@',
  'ann@example.org\u0000',
  'x'.repeat(64) + '@example.org',
);

const hints: FieldHints = (field) => {
  switch (field) {
    case 'event_id':
      return eventIds;
    case 'ticket_type_id':
      return ticketTypeIds;
    case 'on_success_url':
    case 'on_cancel_url':
      return returnUrls;
    case 'embed_origin':
      return origins;
    case 'phone':
    case 'buyer_phone':
      return phones;
    case 'email':
    case 'buyer_email':
      return emails;
    case 'date_of_birth':
      return fc.constantFrom(
        '1990-01-01',
        '2020-02-29',
        '2021-02-29',
        '1899-12-31',
        '2099-01-01',
        '0000-00-00',
        '1990-1-1',
      );
    case 'client_reference_id':
      return fc.oneof(
        fc.string({ unit: 'grapheme', maxLength: 20 }),
        fc.constantFrom('r'.repeat(256), 'r'.repeat(257), '€'.repeat(256)),
      );
    case 'donation_minor':
      return fc.oneof(
        fc.integer({ min: 0, max: 100_000 }),
        fc.constantFrom(2 ** 31 - 1, 2 ** 31, 2 ** 53 - 1, -1),
      );
    default:
      return undefined;
  }
};

/** Known-good bodies, so that mutations start from something that gets past validation. */
function examples(route: string): fc.Arbitrary<unknown> | undefined {
  switch (route) {
    case 'POST /v1/checkout-sessions': {
      const optional = {
        client_reference_id: fc.constantFrom('cart-1', 'r'.repeat(256), 'Zoë-42'),
        prefill: fc.record(
          {
            buyer_name: fc.constantFrom('Ann', 'Zoë Ñandú', '東京'),
            buyer_email: emails,
            buyer_phone: phones,
          },
          { requiredKeys: [] },
        ),
      };
      return fc.oneof(
        fc.record(
          { event_id: eventIds, on_success_url: goodReturnUrls, on_cancel_url: goodReturnUrls, ...optional },
          { requiredKeys: ['event_id', 'on_success_url', 'on_cancel_url'] },
        ),
        fc.record(
          {
            event_id: eventIds,
            ui_mode: fc.constant('embedded'),
            embed_origin: fc.constant(ORIGIN),
            ...optional,
          },
          { requiredKeys: ['event_id', 'ui_mode', 'embed_origin'] },
        ),
      );
    }
    case 'POST /v1/orders':
      return fc.oneof(
        { weight: 1, arbitrary: fc.tuple(eventIds, ticketTypeIds).map(([e, t]) => orderBody(e, t)) },
        {
          weight: 4,
          arbitrary: fc
            .tuple(fc.nat(), fc.integer({ min: 1, max: 12 }), fc.boolean())
            .map(([pickEvent, n, extras]) => {
              // an event on sale (mostly the first or the dear one) with its own ticket types
              const index = [0, 0, 3, 3, 1, 2][pickEvent % 6]!;
              const own = pools.ticketTypesOf[index]!;
              return {
                ...orderBody(pools.events[index]!, own[0]!),
                items: Array.from({ length: n }, (_, i) => ({
                  ticket_type_id: own[(pickEvent + i) % own.length]!,
                  participant_name: `Runner ${i}`,
                  ...(extras && { date_of_birth: '1990-01-01', answers: { shirt: 'M' } }),
                })),
                ...(extras && { waiver_accepted: true, donation_minor: 500, client_reference_id: 'cart-2' }),
              };
            }),
        },
      );
    case 'POST /v1/orders/{orderId}/pay':
      return fc.oneof(
        {
          weight: 3,
          arbitrary: fc.constantFrom(
            { payment_method: 'momo', phone: '0770000001' },
            { payment_method: 'airtel', phone: '0700000001' },
            { payment_method: 'momo', phone: '0772123456' },
          ),
        },
        {
          weight: 1,
          arbitrary: fc.record({ payment_method: fc.constantFrom('momo', 'airtel'), phone: phones }),
        },
      );
    default:
      return undefined;
  }
}

type Credential =
  | 'bearer'
  | 'narrow'
  | 'stranger'
  | 'none'
  | 'publishable-origin'
  | 'publishable'
  | 'publishable-wrong-origin'
  | 'bearer-and-publishable'
  | 'admin-key'
  | 'garbage';

function credentials(publishable: boolean): fc.Arbitrary<[Credential, string]> {
  const kinds: Array<[Credential, number]> = [
    ['bearer', 20],
    ['narrow', 1],
    ['stranger', 1],
    ['none', 1],
    ['publishable-origin', publishable ? 6 : 1],
    ['publishable', 1],
    ['publishable-wrong-origin', 1],
    ['bearer-and-publishable', 1],
    ['admin-key', 1],
    ['garbage', 1],
  ];
  return fc.tuple(
    fc.oneof(...kinds.map(([kind, weight]) => ({ weight, arbitrary: fc.constant(kind) }))),
    headerText,
  );
}

function credentialHeaders([kind, junk]: [Credential, string]): Record<string, string> {
  const pk = { 'x-service-publishable-key': owner.publishableKey };
  switch (kind) {
    case 'bearer':
      return bearer(tokens.owner);
    case 'narrow':
      return bearer(tokens.narrow);
    case 'stranger':
      return bearer(tokens.stranger);
    case 'none':
      return {};
    case 'publishable-origin':
      return { ...pk, origin: ORIGIN };
    case 'publishable':
      return pk;
    case 'publishable-wrong-origin':
      return { ...pk, origin: junk || 'https://evil.example' };
    case 'bearer-and-publishable':
      return { ...bearer(tokens.owner), ...pk, origin: ORIGIN };
    case 'admin-key':
      return bearer(TEST_ADMIN_KEY);
    case 'garbage':
      return { authorization: junk.length % 2 ? `Bearer ${junk}` : junk, 'x-service-publishable-key': junk };
  }
}

const idempotencyKeys = fc.oneof(
  { weight: 6, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.constantFrom('fuzz-key-1', 'fuzz-key-2') },
  { weight: 1, arbitrary: headerText },
);

function pathFor(template: string): fc.Arbitrary<string> {
  const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const segment = (name: string) =>
    fc.oneof(
      {
        weight: 6,
        arbitrary:
          name === 'eventId'
            ? eventIds
            : name === 'orderId'
              ? orderIds
              : name === 'sessionId'
                ? sessionIds
                : eventIds,
      },
      { weight: 3, arbitrary: hostileSegment },
    );
  return fc.tuple(...names.map(segment)).map((values) => {
    let path = template;
    names.forEach((name, i) => (path = path.replace(`{${name}}`, values[i]!)));
    return path;
  });
}

function queryValue(name: string, schema: JsonSchema): fc.Arbitrary<string> {
  switch (name) {
    case 'limit':
      return fc.constantFrom(
        '1',
        '20',
        '50',
        '51',
        '0',
        '-1',
        '2147483648',
        '9007199254740993',
        '1.5',
        '1e3',
        ' 5',
        '0x10',
      );
    case 'cursor':
      return fc.oneof(
        fc.constant(null).chain(() => pick([...pools.eventCursors, ...pools.orderCursors])),
        fc
          .constant(null)
          .chain(() => pick(pools.eventCursors))
          .map((c) => c.slice(0, -2) + 'AA'),
        hostileString,
      );
    case 'event_id':
      return eventIds;
    default:
      return validFromSchema(schema, hints).map((v) => (typeof v === 'string' ? v : toJson(v)));
  }
}

/** The token endpoint: form and JSON bodies, Basic headers, both at once, an Origin. */
function tokenRequests(): fc.Arbitrary<FuzzRequest> {
  const basic = fc.oneof(
    { weight: 4, arbitrary: fc.constant(null).map(() => basicOf(owner.clientId, owner.clientSecret)) },
    {
      weight: 1,
      arbitrary: fc
        .constant(null)
        .map(() => basicOf(encodeURIComponent(owner.clientId), `%${owner.clientSecret}`)),
    },
    { weight: 1, arbitrary: headerText.map((s) => `Basic ${Buffer.from(s, 'latin1').toString('base64')}`) },
    { weight: 1, arbitrary: headerText.map((s) => `Basic ${s}`) },
    { weight: 1, arbitrary: fc.constant(`Bearer ${TEST_ADMIN_KEY}`) },
  );
  const secret = (value: () => string) =>
    fc.oneof({ weight: 4, arbitrary: fc.constant(null).map(value) }, { weight: 1, arbitrary: hostileString });
  const fields = (withCredentials: boolean) =>
    fc.record(
      {
        grant_type: fc.oneof(
          { weight: 6, arbitrary: fc.constant('client_credentials') },
          { weight: 1, arbitrary: fc.constantFrom('password', 'CLIENT_CREDENTIALS', '') },
        ),
        ...(withCredentials && {
          client_id: secret(() => owner.clientId),
          client_secret: secret(() => owner.clientSecret),
        }),
        scope: fc.constantFrom('events:read', 'events:read orders:write', 'admin', '', 'events:read\u0000'),
      },
      {
        requiredKeys: [
          'grant_type',
          ...(withCredentials ? ['client_id' as const, 'client_secret' as const] : []),
        ],
      },
    );
  // client authentication: Basic only, body only, both, neither
  const mode = fc.constantFrom('basic', 'basic', 'basic', 'body', 'body', 'body', 'both', 'neither');
  const encode = (value: unknown, form: boolean): string => {
    if (!form) return toJson(value);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return toJson(value);
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(value)) params.append(k, typeof v === 'string' ? v : toJson(v));
    return params.toString();
  };
  return mode
    .chain((m) => {
      const inBody = m === 'body' || m === 'both';
      return fc.record({
        form: fc.boolean(),
        body: fc.oneof(
          { weight: 3, arbitrary: fields(inBody) },
          { weight: 2, arbitrary: mutated(fields(inBody)) },
        ),
        authorization: m === 'basic' || m === 'both' ? basic : fc.constant(null),
        origin: sometimes(fc.constantFrom(ORIGIN, 'null'), 1, 12),
        query: sometimes(
          fc.constantFrom('?client_secret=sec_leak', '?grant_type=client_credentials', '?%'),
          1,
          12,
        ),
      });
    })
    .map(({ form, body: value, authorization, origin, query }) => ({
      method: 'POST',
      url: `/v1/oauth/token${query ?? ''}`,
      headers: {
        'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json',
        ...(authorization !== null && { authorization }),
        ...(origin !== null && { origin }),
      },
      payload: encode(value, form),
    }));
}

function basicOf(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
}

function requestsFor(route: string, op: Operation): fc.Arbitrary<FuzzRequest> {
  if (route === 'POST /v1/oauth/token') return tokenRequests();
  const queryParams = (op.parameters ?? []).filter((p) => p.in === 'query');
  const hasIdempotency = (op.parameters ?? []).some((p) => p.in === 'header' && p.name === 'idempotency-key');
  const publishable = (op.security ?? []).some((s) => 'publishableKey' in s);
  const schema = op.requestBody?.content['application/json']?.schema;
  const example = examples(route);
  const valid = schema
    ? example
      ? fc.oneof({ weight: 3, arbitrary: example }, { weight: 1, arbitrary: validFromSchema(schema, hints) })
      : validFromSchema(schema, hints)
    : undefined;
  return fc
    .record({
      path: pathFor(op.path),
      query: queryFor(
        queryParams.map((p) => p.name),
        (name) => queryValue(name, queryParams.find((p) => p.name === name)!.schema),
      ),
      credential: credentials(publishable),
      idempotencyKey: hasIdempotency ? idempotencyKeys : fc.constant(null),
      payload: valid ? payloadFor(valid) : fc.constant({ contentType: undefined, text: undefined }),
    })
    .map(({ path, query, credential, idempotencyKey, payload }) => ({
      method: op.method,
      url: path + query,
      headers: {
        ...credentialHeaders(credential),
        ...(payload.contentType !== undefined && { 'content-type': payload.contentType }),
        ...(idempotencyKey !== null && { 'idempotency-key': idempotencyKey }),
      },
      ...(payload.text !== undefined && { payload: payload.text }),
    }));
}

/** Any method on any path, known or not: 404 and 405 in the envelope too. */
const strayRequests: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
    path: fc.oneof(
      fc.constantFrom(
        '/',
        '/v1',
        '/v1/',
        '/v1/events/',
        '/v1/orders//pay',
        '/V1/EVENTS',
        '/v1/events/%2e%2e/orders',
        '/v2/events',
        '//v1/events',
        '/v1/payment-callbacks/momo/x',
      ),
      fc.array(hostileSegment, { minLength: 1, maxLength: 4 }).map((s) => `/v1/${s.join('/')}`),
    ),
    credential: credentials(true),
  })
  .map(({ method, path, credential }) => ({ method, url: path, headers: credentialHeaders(credential) }));

function send(request: FuzzRequest): Promise<Answer> {
  if (request.url.startsWith(STREAM_PATH)) return sendOverHttp(request);
  return h.service.api.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: request.headers,
    ...(request.payload !== undefined && { payload: request.payload }),
  });
}

const STREAM_PATH = '/v1/webhook-events/stream';
let listening: string | undefined;

/**
 * The event stream over a real connection: an accepted stream never ends, so its answer is its
 * status and headers, and the connection is dropped (inject would wait for an end).
 */
async function sendOverHttp(request: FuzzRequest): Promise<Answer> {
  listening ??= await h.service.api.listen({ port: 0, host: '127.0.0.1' });
  const abort = new AbortController();
  const res = await fetch(`${listening}${request.url}`, {
    method: request.method,
    headers: request.headers,
    signal: abort.signal,
    ...(request.payload !== undefined && { body: request.payload }),
  });
  const headers = Object.fromEntries(res.headers);
  if (res.status === 200 && String(headers['content-type']).startsWith('text/event-stream')) {
    abort.abort();
    return { statusCode: res.status, headers, body: '' };
  }
  return { statusCode: res.status, headers, body: await res.text() };
}

describe('fuzz over the partner API', () => {
  test('every route of the OpenAPI document keeps its envelope and never answers 5xx', async (t) => {
    const doc = (await h.service.api.inject({ url: '/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, Omit<Operation, 'method' | 'path'>>>;
    };
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({
        name: `${method.toUpperCase()} ${path}`,
        op: { ...op, method: method.toUpperCase(), path },
        weight: 1 + (op.requestBody || path.endsWith('/token') ? 2 : 0) + (op.parameters?.length ? 1 : 0),
      })),
    );
    assert.ok(routes.length >= 9, `the document lists ${routes.length} routes`);
    const targets = [...routes, { name: 'stray requests', op: undefined, weight: 1 }];
    const runs = splitRuns(targets, RUNS);
    for (const target of targets) {
      await t.test(target.name, async () => {
        const requests = target.op ? requestsFor(target.name, target.op) : strayRequests;
        await fuzz(target.name, requests, runs.get(target)!, send, {
          oauth: target.name === 'POST /v1/oauth/token',
        });
      });
    }
  });
});
