import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { PUBLISHABLE_KEY_HEADER } from '../../src/auth/authenticate.ts';
import type { Host } from '../../src/platform/http.ts';
import { bearer, getToken, makeEvent, makePartner, startHarness, type Harness } from '../helpers/harness.ts';

let h: Harness;

before(async () => {
  h = await startHarness();
});
after(() => h.close());

// ajv-formats is published as CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string };
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Record<string, unknown>>; schemas?: Record<string, unknown> };
}
interface Operation {
  security?: Array<Record<string, string[]>>;
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
  [key: string]: unknown;
}

/** /v1 operations partners must find in the document, at the least (docs/contract.md). */
const REQUIRED_OPERATIONS = ['POST /v1/oauth/token', 'GET /v1/events', 'GET /v1/events/{eventId}'];
/** Registered /v1 routes that are deliberately not operations of the API: the document itself and the providers' payment callbacks. */
const UNDOCUMENTED = new Set([
  'GET /v1/openapi.json',
  'POST /v1/payment-callbacks/{method}/{reference}',
  'PUT /v1/payment-callbacks/{method}/{reference}',
  'POST /v1/payment-callbacks/{method}',
  'POST /v1/payment-callbacks/mpesa/refunds/{reference}/result',
  'POST /v1/payment-callbacks/mpesa/refunds/{reference}/timeout',
]);
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

async function fetchDocument(): Promise<OpenApiDoc> {
  const res = await h.service.api.inject({ url: '/v1/openapi.json' });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  return res.json() as OpenApiDoc;
}

/**
 * Every method + path registered on a host, read from Fastify's own route tree (printRoutes), so
 * a route added later is seen here without editing this test. HEAD (automatic) and OPTIONS (CORS
 * preflight) are left out: they are not operations of the API.
 */
function registeredRoutes(app: Host): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)(?:├── |└── )(\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    const path = stack.join('');
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim())) {
      if (!method || method === 'HEAD' || method === 'OPTIONS') continue;
      // The parse must agree with the router itself.
      assert.ok(app.hasRoute({ method: method as 'GET', url: path }), `${method} ${path} from printRoutes`);
      out.push(`${method} ${path}`);
    }
  }
  return out.sort();
}

/** Fastify's :param to OpenAPI's {param}. */
const toOpenApiPath = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function operations(doc: OpenApiDoc): Array<[string, Operation]> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]),
  );
}

/** True when `value` holds a non-empty `examples` array or an `example` anywhere inside. */
function hasExample(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasExample);
  if (value === null || typeof value !== 'object') return false;
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'example' && inner !== undefined) return true;
    if (key === 'examples' && (Array.isArray(inner) ? inner.length > 0 : Object.keys(inner ?? {}).length > 0))
      return true;
    if (hasExample(inner)) return true;
  }
  return false;
}

describe('GET /v1/openapi.json', () => {
  test('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    const doc = await fetchDocument();
    assert.equal(doc.openapi, '3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Record<string, unknown>);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(validator.version, '3.1');
    // Throws on a $ref that points nowhere (the schema check alone does not follow $refs).
    assert.doesNotThrow(() => validator.resolveRefs());
    assert.equal(doc.servers?.[0]?.url, h.config.apiUrl.origin);
  });

  test('documents every /v1 route registered on the API host, and no route that is not there', async () => {
    const doc = await fetchDocument();
    const registered = registeredRoutes(h.service.api)
      .filter((r) => r.split(' ')[1]!.startsWith('/v1/'))
      .map(toOpenApiPath)
      .filter((r) => !UNDOCUMENTED.has(r));
    const documented = operations(doc)
      .map(([name]) => name)
      .sort();
    for (const required of REQUIRED_OPERATIONS) assert.ok(registered.includes(required), required);
    assert.deepEqual(documented, registered);
  });

  test('names the shared error body Error and points every envelope error response at it', async () => {
    const doc = await fetchDocument();
    const error = doc.components.schemas?.Error as { required?: string[] } | undefined;
    assert.ok(error, `component schemas: ${Object.keys(doc.components.schemas ?? {}).join(', ')}`);
    assert.deepEqual([...(error.required ?? [])].sort(), ['code', 'error_code', 'message', 'request_id']);
    let checked = 0;
    for (const [name, op] of operations(doc)) {
      if (name === 'POST /v1/oauth/token') continue; // bare OAuth error shape (docs/contract.md)
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        assert.deepEqual(
          response.content?.['application/json']?.schema,
          { $ref: '#/components/schemas/Error' },
          `${name} ${status}`,
        );
        checked++;
      }
    }
    assert.ok(checked > 0);
  });

  test('shows at least one example for every operation', async () => {
    const doc = await fetchDocument();
    for (const [name, op] of operations(doc)) assert.ok(hasExample(op), `${name} has no example`);
  });

  test('declares the bearer and publishableKey security schemes as the API takes them', async () => {
    const doc = await fetchDocument();
    const schemes = doc.components.securitySchemes;
    assert.equal(schemes.bearer?.type, 'http');
    assert.equal(schemes.bearer?.scheme, 'bearer');
    assert.equal(schemes.publishableKey?.type, 'apiKey');
    assert.equal(schemes.publishableKey?.in, 'header');
    assert.equal(String(schemes.publishableKey?.name).toLowerCase(), PUBLISHABLE_KEY_HEADER);
    for (const name of ['GET /v1/events', 'GET /v1/events/{eventId}']) {
      const op = operations(doc).find(([n]) => n === name)![1];
      assert.deepEqual(op.security, [{ bearer: [] }, { publishableKey: [] }], name);
    }
    // Every security requirement names a declared scheme.
    for (const [name, op] of operations(doc)) {
      for (const requirement of op.security ?? []) {
        for (const scheme of Object.keys(requirement)) assert.ok(schemes[scheme], `${name}: ${scheme}`);
      }
    }
  });

  test('describes the responses the API really sends', async () => {
    const doc = await fetchDocument();
    const validator = new Validator();
    await validator.validate(doc as unknown as Record<string, unknown>);
    const resolved = validator.resolveRefs() as unknown as OpenApiDoc;
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

    const partner = await makePartner(h);
    const token = await getToken(h, partner);
    const event = await makeEvent(h, partner);
    await makeEvent(h, partner);
    const api = h.service.api;
    const cases: Array<{ op: string; res: Awaited<ReturnType<typeof api.inject>> }> = [
      {
        op: 'POST /v1/oauth/token',
        res: await api.inject({
          method: 'POST',
          url: '/v1/oauth/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `grant_type=client_credentials&client_id=${partner.clientId}&client_secret=${partner.clientSecret}`,
          remoteAddress: '10.77.0.1',
        }),
      },
      {
        op: 'POST /v1/oauth/token',
        res: await api.inject({
          method: 'POST',
          url: '/v1/oauth/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: 'grant_type=password',
          remoteAddress: '10.77.0.2',
        }),
      },
      { op: 'GET /v1/events', res: await api.inject({ url: '/v1/events?limit=1', headers: bearer(token) }) },
      {
        op: 'GET /v1/events',
        res: await api.inject({ url: '/v1/events?cursor=abc', headers: bearer(token) }),
      },
      { op: 'GET /v1/events', res: await api.inject({ url: '/v1/events?limit=x', headers: bearer(token) }) },
      { op: 'GET /v1/events', res: await api.inject({ url: '/v1/events' }) },
      {
        op: 'GET /v1/events/{eventId}',
        res: await api.inject({ url: `/v1/events/${event.id}`, headers: bearer(token) }),
      },
      {
        op: 'GET /v1/events/{eventId}',
        res: await api.inject({ url: '/v1/events/evt_unknown', headers: bearer(token) }),
      },
    ];
    const seen = new Set<string>();
    for (const { op, res } of cases) {
      const [method, path] = op.split(' ') as [string, string];
      const response = resolved.paths[path]?.[method.toLowerCase()]?.responses[String(res.statusCode)];
      assert.ok(response, `${op} does not document status ${res.statusCode}: ${res.body}`);
      const schema = response.content?.['application/json']?.schema;
      assert.ok(schema, `${op} ${res.statusCode} has no JSON schema`);
      const validate = ajv.compile(schema);
      assert.ok(
        validate(res.json()),
        `${op} ${res.statusCode}: ${JSON.stringify(validate.errors)}\n${res.body}`,
      );
      seen.add(`${op} ${res.statusCode}`);
    }
    // The cases above reached the statuses they were written for.
    assert.deepEqual([...seen].sort(), [
      'GET /v1/events 200',
      'GET /v1/events 400',
      'GET /v1/events 401',
      'GET /v1/events/{eventId} 200',
      'GET /v1/events/{eventId} 404',
      'POST /v1/oauth/token 200',
      'POST /v1/oauth/token 400',
    ]);
  });
});
