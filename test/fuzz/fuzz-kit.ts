// The seeded property-based fuzz's shared parts: settings, JSON-schema-driven body generators with
// hostile mutations, hostile path segments and query strings, and the one check every answer
// must pass (no 5xx, the error envelope on every 4xx, an X-Request-Id).
import assert from 'node:assert/strict';
import fc from 'fast-check';

// ---------------------------------------------------------------------------------------------
// Settings

function intSetting(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got "${raw}"`);
  return value;
}

/** Fixed by default so that every run tries the same inputs; FUZZ_SEED replays another run. */
export const FUZZ_SEED = intSetting('FUZZ_SEED', 150_2026);
/** Inputs of the whole fuzz suite (its two files share them): 10,000 unless FUZZ_RUNS says, never under 5,000. */
export const FUZZ_RUNS = Math.max(intSetting('FUZZ_RUNS', 10_000), 5000);

export interface FuzzTarget {
  /** "METHOD /path" as the route is registered */
  name: string;
  /** relative share of the file's inputs */
  weight: number;
}

/** Splits a file's inputs over its targets by weight, rounding up so none is short-changed. */
export function splitRuns<T extends FuzzTarget>(targets: T[], total: number): Map<T, number> {
  const sum = targets.reduce((s, t) => s + t.weight, 0);
  return new Map(targets.map((t) => [t, Math.max(20, Math.ceil((total * t.weight) / sum))]));
}

// ---------------------------------------------------------------------------------------------
// Requests and the invariant every answer keeps

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

export interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

function clip(text: string, max = 600): string {
  return text.length <= max ? text : `${text.slice(0, max)}... (${text.length} characters)`;
}

/** A request as a reproduction: method, URL, headers, body (clipped when long). */
export function describeRequest(request: FuzzRequest): string {
  const lines = [
    `${request.method} ${clip(request.url, 300)}`,
    `headers: ${JSON.stringify(request.headers)}`,
  ];
  if (request.payload !== undefined) lines.push(`body: ${clip(JSON.stringify(request.payload))}`);
  return lines.join('\n');
}

/** Gives generated requests a short, readable form in fast-check's counterexample report. */
export function printable(request: FuzzRequest): FuzzRequest {
  return Object.defineProperty(request, fc.toStringMethod, {
    value: () => describeRequest(request),
    enumerable: false,
  });
}

/**
 * No 5xx; every answer carries X-Request-Id; every 4xx is the error envelope with `code` equal to
 * the status (or, on the token endpoint, the OAuth error shape); every 2xx is the success envelope.
 */
export function checkAnswer(request: FuzzRequest, res: Answer, options: { oauth?: boolean } = {}): void {
  const where = () =>
    `\n--- request\n${describeRequest(request)}\n--- answer\n${res.statusCode} ${clip(res.body)}`;
  assert.ok(res.statusCode < 500, `a ${res.statusCode} answer${where()}`);
  const requestId = res.headers['x-request-id'];
  assert.ok(typeof requestId === 'string' && /^req_\w+$/.test(requestId), `no X-Request-Id${where()}`);
  if (res.statusCode === 204) return; // a CORS preflight: no body at all
  // The event stream's answer is server-sent events, never ending (test/webhooks/event-stream.test.ts)
  if (res.statusCode === 200 && String(res.headers['content-type']).startsWith('text/event-stream')) return;
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    assert.fail(`a body that is not JSON${where()}`);
  }
  const object = (body ?? {}) as Record<string, unknown>;
  if (options.oauth) {
    if (res.statusCode >= 400) {
      assert.ok(
        typeof object.error === 'string' && typeof object.error_description === 'string',
        `not the OAuth error shape${where()}`,
      );
    }
    return;
  }
  if (res.statusCode >= 400) {
    assert.ok(
      object.code === res.statusCode &&
        typeof object.message === 'string' &&
        typeof object.error_code === 'string' &&
        object.request_id === requestId,
      `not the error envelope {code, message, error_code, request_id}${where()}`,
    );
  } else if (res.statusCode >= 200 && res.statusCode < 300 && res.statusCode !== 204) {
    assert.ok(
      object.code === res.statusCode && typeof object.message === 'string' && 'data' in object,
      `not the success envelope {code, message, data}${where()}`,
    );
  }
}

/** FUZZ_SEED mixed with the target's name (FNV-1a), so that each route gets different inputs. */
function seedOf(label: string): number {
  let hash = 0x811c9dc5;
  for (const ch of label) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193);
  return (hash ^ FUZZ_SEED) | 0;
}

/** The kind of an answer, for the status counts and for telling failures apart. */
function kindOf(res: Answer): string {
  try {
    const body = JSON.parse(res.body) as { error_code?: string; error?: string };
    return `${res.statusCode} ${body.error_code ?? body.error ?? ''}`.trim();
  } catch {
    return `${res.statusCode} (not JSON)`;
  }
}

/**
 * Runs `numRuns` generated requests through `send`, checking every answer. A failure is shrunk to
 * a small reproduction and reported with the seed that replays it. FUZZ_KEEP_GOING=1 instead
 * runs every input and reports one reproduction of each distinct failure (unshrunk);
 * FUZZ_STATS=1 prints how many answers of each status and error code each target got.
 */
export async function fuzz(
  label: string,
  requests: fc.Arbitrary<FuzzRequest>,
  numRuns: number,
  send: (request: FuzzRequest) => Promise<Answer>,
  options: { oauth?: boolean } = {},
): Promise<void> {
  const keepGoing = Boolean(process.env.FUZZ_KEEP_GOING);
  const statuses = new Map<string, number>();
  const failures = new Map<string, string>();
  const property = fc.asyncProperty(requests.map(printable), async (request) => {
    const res = await send(request);
    const kind = kindOf(res);
    statuses.set(kind, (statuses.get(kind) ?? 0) + 1);
    try {
      checkAnswer(request, res, options);
    } catch (error) {
      if (!keepGoing) throw error;
      const what = `${(error as Error).message.split('\n')[0]}: ${kind}`;
      if (!failures.has(what)) failures.set(what, (error as Error).message);
    }
  });
  // each target its own stream of inputs, all fixed by FUZZ_SEED
  const seed = seedOf(label);
  const replay = `replay: FUZZ_SEED=${FUZZ_SEED} FUZZ_RUNS=${FUZZ_RUNS} node --test --test-name-pattern="${label}" (seed ${seed} for this route)`;
  try {
    await fc.assert(property, { seed, numRuns });
  } catch (error) {
    // fast-check's report (seed, path, shrunk counterexample), then what the answer got wrong
    const failure = (error as Error & { cause?: Error }).cause?.message ?? '';
    throw new Error(`${label}: ${replay}\n${(error as Error).message}\n${failure}`, { cause: error });
  } finally {
    if (process.env.FUZZ_STATS) {
      const counts = [...statuses].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k}: ${n}`);
      console.log(`${label} (${numRuns} inputs): ${counts.join(', ')}`);
    }
  }
  if (failures.size > 0) {
    const list = [...failures].map(([what, message], i) => `#${i + 1} ${what}\n${message}`).join('\n\n');
    assert.fail(`${label}: ${failures.size} distinct failures; ${replay}\n\n${list}`);
  }
}

// ---------------------------------------------------------------------------------------------
// JSON with literals JSON.stringify cannot write (2^53 + 1, 1e400, deep nesting)

/** A piece of JSON text placed as is. */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

export function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

// ---------------------------------------------------------------------------------------------
// Hostile values

const BOUNDARY_NUMBERS = [
  0,
  -1,
  1,
  0.5,
  -0.5,
  1.5,
  99.99,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  -(2 ** 31) - 1,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  -(2 ** 53),
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
  1e21,
  1e-7,
];

const RAW_NUMBERS = [
  '9007199254740993',
  '-9007199254740993',
  '18446744073709551616',
  '123456789012345678901234567890',
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '-0.0',
  '1.0',
  '2147483648.0',
  '2147483647.5',
  '0.1e1',
  '1E2',
];

const HOSTILE_STRINGS = [
  '',
  ' ',
  '\t\n',
  '0',
  '-1',
  '1e400',
  'NaN',
  'Infinity',
  'null',
  'true',
  '[]',
  '{}',
  '\u0000',
  'a\u0000b',
  '%00',
  '\uD800',
  'a\uDC00b',
  '\uFEFF',
  '\u202Eevil',
  '\u200B',
  '👩‍👩‍👧‍👦',
  'ﬀİß\u0301',
  'Zoë Ñandú',
  '東京マラソン',
  'مرحبا',
  "' OR '1'='1",
  '"; DROP TABLE orders; --',
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '../../etc/passwd',
  'javascript:alert(1)',
  '\r\nSet-Cookie: a=b',
  '%E2%82%AC%FF',
  'evt_AAAAAAAAAAAAAAAAAAAAAAAA',
  'org_AAAAAAAAAAAAAAAAAAAAAAAA',
];

const LONG_LENGTHS = [33, 65, 101, 201, 255, 257, 1001, 2049, 5001, 20_001, 50_001, 70_000];

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.oneof(fc.constantFrom('a', 'é', '\u0000'), loneSurrogate),
      maxLength: 8,
    }),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(...LONG_LENGTHS), fc.constantFrom('a', 'é', '€', '😀', '%', ' '))
      .map(([n, c]) => c.repeat(Math.ceil(n / c.length))),
  },
);

/** Arrays or objects nested `depth` deep, as text (the body limit caps how deep a real one gets). */
export function nested(depth: number, kind: 'array' | 'object'): RawJson {
  return kind === 'array'
    ? new RawJson('['.repeat(depth) + ']'.repeat(depth))
    : new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
}

export const hostileNumber: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...BOUNDARY_NUMBERS) },
  { weight: 2, arbitrary: fc.constantFrom(...RAW_NUMBERS).map((t) => new RawJson(t)) },
  { weight: 1, arbitrary: fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
);

/** Any JSON value a field should not hold: wrong types, edge numbers, hostile text, deep nesting. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [null], { '': '' }) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(2, 50, 1000, 20_000), fc.constantFrom('array' as const, 'object' as const))
      .map(([depth, kind]) => nested(depth, kind)),
  },
  { weight: 1, arbitrary: fc.array(fc.constant(1), { minLength: 1000, maxLength: 1000 }) },
);

/** Extra field names: mass assignment, prototype keys, odd text. */
const EXTRA_KEYS = [
  'extra',
  'id',
  'organization_id',
  'status',
  'paid',
  'amount_minor',
  'total_minor',
  'price_minor',
  'client_id',
  'scopes',
  '__proto__',
  'constructor',
  'prototype',
  '',
  'é',
  '\u0000',
  'a'.repeat(300),
];

// ---------------------------------------------------------------------------------------------
// Bodies from JSON schemas

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
}

/** Valid-looking values for a field, by its name; undefined leaves it to the schema. */
export type FieldHints = (field: string) => fc.Arbitrary<unknown> | undefined;

/** Date-times at and past the edges of what a timestamp column or a Date holds. */
export const EDGE_DATES = [
  '2030-02-30T00:00:00Z',
  '2030-12-31T23:59:60Z',
  '2030-01-01T24:00:00Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '1969-12-31T23:59:59.999999999Z',
  '2030-01-01T00:00:00+14:00',
  '2030-01-01T00:00:00-12:00',
  '0001-01-01T00:00:00Z',
  '2030-06-01T05:00:00+25:00',
];

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 60;
  if (schema.format === 'date-time') {
    return fc.oneof(
      fc.constantFrom('2030-06-01T05:00:00.000Z', '2020-01-01T08:00:00+03:00'),
      fc.constantFrom(...EDGE_DATES),
    );
  }
  if (schema.pattern) {
    let matching: fc.Arbitrary<string> | undefined;
    try {
      matching = fc
        .stringMatching(new RegExp(schema.pattern), { maxLength: Math.min(max, 40) })
        .filter((s) => s.length >= min && s.length <= max);
    } catch {
      matching = undefined;
    }
    if (matching) return matching;
  }
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.string({ unit: 'grapheme', minLength: Math.max(min, 1), maxLength: Math.min(max, 30) }),
    },
    // exactly at the limit, in characters that take several bytes
    { weight: 1, arbitrary: fc.constantFrom('a', 'é', '€').map((c) => c.repeat(Math.min(max, 5000))) },
  );
}

function integerFor(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.minimum ?? -(2 ** 31);
  const max = schema.maximum ?? 2 ** 31 - 1;
  return fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min, max }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
  );
}

function numberFor(schema: JsonSchema): fc.Arbitrary<number> {
  const min = schema.minimum ?? -1e9;
  const max = schema.maximum ?? 1e9;
  return fc.oneof(
    { weight: 3, arbitrary: fc.double({ min, max, noNaN: true, noDefaultInfinity: true }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
  );
}

/** Values the schema (and, through hints, the route's business rules) would accept. */
export function validFromSchema(
  schema: JsonSchema,
  hints: FieldHints,
  field = '',
  depth = 0,
): fc.Arbitrary<unknown> {
  const hinted = field ? hints(field) : undefined;
  if (hinted) return hinted;
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return fc.oneof(...branches.map((b) => validFromSchema(b, hints, field, depth)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return integerFor(schema);
    case 'number':
      return numberFor(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = schema.items ? validFromSchema(schema.items, hints, field, depth + 1) : fc.jsonValue();
      const maxLength = Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 4, 4));
      return fc.array(items, { minLength: schema.minItems ?? 0, maxLength });
    }
    case 'object': {
      const properties = schema.properties ?? {};
      const record = fc.record(
        Object.fromEntries(
          Object.entries(properties).map(([name, sub]) => [
            name,
            validFromSchema(sub, hints, name, depth + 1),
          ]),
        ),
        { requiredKeys: (schema.required ?? []).filter((k) => k in properties) },
      );
      const mapSchema =
        typeof schema.additionalProperties === 'object'
          ? schema.additionalProperties
          : Object.values(schema.patternProperties ?? {})[0];
      if (!mapSchema || Object.keys(properties).length > 0) return record;
      return fc.dictionary(
        fc.string({ unit: 'grapheme', maxLength: 20 }),
        validFromSchema(mapSchema, hints, '', depth + 1),
        {
          maxKeys: 4,
        },
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

// ---------------------------------------------------------------------------------------------
// Mutations of a valid body

/** Ways to spoil a valid text while keeping the rest of it: broken Unicode, NUL, odd characters. */
const CORRUPTIONS = ['\uD800', '\uDC00', '\u0000', '\u202E', '€', '%', '\r\n', 'a'.repeat(5000)];

interface Mutation {
  corruption: string;
  at: number;
  kind: 'replace' | 'delete' | 'extra' | 'wrap-in-array' | 'array-for-object' | 'stringify' | 'corrupt';
  key: string;
  value: unknown;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  // unbiased: small numbers would pick the first fields over and over
  at: fc.noBias(fc.nat()),
  // corrupting keeps a field's type, so the input gets past the schema to the code behind it
  kind: fc.oneof(
    { weight: 4, arbitrary: fc.constant('corrupt' as const) },
    { weight: 3, arbitrary: fc.constant('replace' as const) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        'delete',
        'extra',
        'wrap-in-array',
        'array-for-object',
        'stringify',
      ) as fc.Arbitrary<Mutation['kind']>,
    },
  ),
  key: fc.constantFrom(...EXTRA_KEYS),
  corruption: fc.constantFrom(...CORRUPTIONS),
  value: hostileValue,
});

type Path = Array<string | number>;

function pathsOf(value: unknown, path: Path = [], out: Path[] = []): Path[] {
  out.push(path);
  if (Array.isArray(value)) value.forEach((item, i) => pathsOf(item, [...path, i], out));
  else if (value !== null && typeof value === 'object' && !(value instanceof RawJson)) {
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...path, k], out);
  }
  return out;
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown) {
  // defineProperty, so that "__proto__" becomes a real key of the JSON object
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Applies one mutation to (a copy of) `body`; the root may be replaced. */
function applyMutation(body: unknown, m: Mutation): unknown {
  // the whole body is replaced elsewhere (hostile documents); here it only gains fields or changes shape
  const rootToo = m.kind === 'extra' || m.kind === 'wrap-in-array' || m.kind === 'array-for-object';
  const all = pathsOf(body);
  const strings = all.filter(
    (p) => typeof p.reduce<unknown>((n, k) => (n as Record<string | number, unknown>)[k], body) === 'string',
  );
  const paths =
    m.kind === 'corrupt' && strings.length > 0 ? strings : rootToo || all.length === 1 ? all : all.slice(1);
  const path = paths[m.at % paths.length]!;
  const get = (p: Path) =>
    p.reduce<unknown>((node, k) => (node as Record<string | number, unknown>)[k], body);
  const node = get(path);
  // a copy: generated values can be shared instances (constants), and must never form a cycle
  const value = copyOf(m.value);
  let next: unknown;
  switch (m.kind) {
    case 'replace':
      next = value;
      break;
    case 'delete':
      next = undefined;
      break;
    case 'extra':
      if (node !== null && typeof node === 'object' && !Array.isArray(node) && !(node instanceof RawJson)) {
        setOwn(node as Record<string, unknown>, m.key, value);
        return body;
      }
      next = value;
      break;
    case 'wrap-in-array':
      next = [node];
      break;
    case 'array-for-object':
      next = node !== null && typeof node === 'object' ? Object.values(node) : [node, node];
      break;
    case 'stringify':
      next = node === undefined ? 'undefined' : toJson(node);
      break;
    case 'corrupt':
      next = typeof node === 'string' ? node + m.corruption : value;
      break;
  }
  if (path.length === 0) return next;
  const parent = get(path.slice(0, -1)) as Record<string | number, unknown>;
  const key = path[path.length - 1]!;
  if (next === undefined && Array.isArray(parent)) parent.splice(key as number, 1);
  else if (next === undefined) delete parent[key];
  else setOwn(parent as Record<string, unknown>, String(key), next);
  return body;
}

function copyOf(value: unknown): unknown {
  if (value instanceof RawJson) return value;
  if (Array.isArray(value)) return value.map(copyOf);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, copyOf(v));
    return out;
  }
  return value;
}

/** A valid body with one to three hostile mutations at random places. */
export function mutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(valid, fc.array(mutation, { minLength: 1, maxLength: 3 }))
    .map(([body, mutations]) => mutations.reduce((b, m) => applyMutation(b, m), copyOf(body)));
}

// ---------------------------------------------------------------------------------------------
// Whole payloads

const RAW_BODIES = [
  '',
  ' ',
  'null',
  'true',
  '0',
  '"x"',
  '[]',
  '[{}]',
  '{',
  '}',
  '{"a":}',
  '{"a":1,}',
  "{'a':1}",
  '\u0000',
  '\uFEFF{}',
  '{"a":1}{"b":2}',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  'NaN',
  '{"a":NaN}',
  '\xff\xfe{\x00}',
];

export interface Payload {
  contentType: string | undefined;
  text: string | undefined;
}

const JSON_TYPE = 'application/json';
const OTHER_TYPES = [
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json;;',
  'application/vnd.api+json',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '*/*',
  '',
];

/**
 * A body for a route taking `schema`: mostly valid-looking or mutated JSON, sometimes a hostile
 * document, another content type, or no body at all.
 */
export function payloadFor(valid: fc.Arbitrary<unknown>): fc.Arbitrary<Payload> {
  const json = (value: fc.Arbitrary<unknown>) =>
    value.map((v): Payload => ({ contentType: JSON_TYPE, text: toJson(v) }));
  return fc.oneof(
    { weight: 8, arbitrary: json(valid) },
    { weight: 8, arbitrary: json(mutated(valid)) },
    { weight: 1, arbitrary: json(hostileValue) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(...RAW_BODIES).map((text): Payload => ({ contentType: JSON_TYPE, text })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...OTHER_TYPES), valid)
        .map(([contentType, v]): Payload => ({ contentType, text: toJson(v) })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Payload>(
        { contentType: undefined, text: undefined },
        { contentType: JSON_TYPE, text: undefined },
        { contentType: JSON_TYPE, text: `{"a":"${'x'.repeat(70_000)}"}` },
      ),
    },
  );
}

/** Present in `weight` of `outOf` inputs, else null. */
export function sometimes<T>(
  arbitrary: fc.Arbitrary<T>,
  weight: number,
  outOf: number,
): fc.Arbitrary<T | null> {
  return fc.oneof({ weight, arbitrary }, { weight: outOf - weight, arbitrary: fc.constant(null) });
}

// ---------------------------------------------------------------------------------------------
// Paths and query strings

/** encodeURIComponent that also writes lone surrogates (as the bytes a careless client sends). */
export function encodeAny(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]|[\s\S]/g, (ch) => {
      const c = ch.charCodeAt(0);
      if (ch.length === 2 || c < 0xd800 || c > 0xdfff) return encodeURIComponent(ch);
      const bytes = [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)];
      return bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    });
  }
}

/** Path segments no route should choke on, already in URL form. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '%00',
      'evt_%00AAAAAAAAAAAAAAAAAAAA',
      '%FF%FE',
      '%',
      '%zz',
      '%E2%82',
      '..',
      '.',
      '%2e%2e',
      '%2F',
      'a%2Fb',
      '%20',
      'é',
      '€',
      'x'.repeat(200),
      'x'.repeat(201),
      'x'.repeat(5000),
      '9007199254740993',
      '-1',
      '1e400',
      "org_1'%20OR%20'1'='1",
      '%E2%80%AEevt_AAAAAAAAAAAAAAAAAAAAAAAA',
      'ord_' + 'A'.repeat(64),
      'ord_' + 'A'.repeat(65),
    ),
  },
  { weight: 2, arbitrary: hostileString.filter((s) => s.length < 300).map(encodeAny) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }) },
);

/** A query string for `names` (the route's parameters) with valid and hostile values and extras. */
export function queryFor(
  names: string[],
  valid: (name: string) => fc.Arbitrary<string>,
): fc.Arbitrary<string> {
  const pair = fc.oneof(
    ...(names.length > 0
      ? [
          {
            weight: 6,
            arbitrary: fc.constantFrom(...names).chain((n) => valid(n).map((v) => `${n}=${encodeAny(v)}`)),
          },
          {
            weight: 3,
            arbitrary: fc
              .tuple(
                fc.constantFrom(...names),
                hostileString.filter((s) => s.length < 3000),
              )
              .map(([n, v]) => `${n}=${encodeAny(v)}`),
          },
          {
            weight: 1,
            arbitrary: fc
              .tuple(fc.constantFrom(...names), fc.constantFrom('', '[]', '[0]', '[a]', '.x'))
              .map(([n, s]) => `${n}${s}=1`),
          },
        ]
      : []),
    {
      weight: 1,
      arbitrary: fc.constantFrom('extra=1', 'a', '=', '&', '%', '%zz=1', 'a=%FF', 'a=%00', '__proto__=1'),
    },
  );
  // a route without parameters mostly gets none, so that its body is what is tried
  return fc.oneof(
    { weight: names.length > 0 ? 1 : 9, arbitrary: fc.constant('') },
    {
      weight: 4,
      arbitrary: fc.array(pair, { minLength: 1, maxLength: 4 }).map((pairs) => `?${pairs.join('&')}`),
    },
  );
}

/** Printable Latin-1 text, the most an HTTP header value can carry. */
export const headerText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 }),
  fc.constantFrom('é', 'ÿ\u00a0', ' ', '', 'x'.repeat(8000)),
);
