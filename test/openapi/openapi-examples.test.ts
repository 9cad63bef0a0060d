// The examples and the webhooks section of GET /v1/openapi.json: every example in the document is
// valid for its schema (objects closed, so a stray or missing field counts), a response example's
// code is its status, and a real order.paid and test webhook match the documented requests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Harness } from '../helpers/harness.ts';
import { bearer } from '../helpers/harness.ts';
import {
  createEndpoint,
  makeShop,
  payFreeOrder,
  pump,
  readOrder,
  startReceiver,
  startWebhookHarness,
  verifyDelivery,
  type Receiver,
} from '../webhooks/webhook-helpers.ts';

// ajv-formats is published as CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, unknown>;

let h: Harness;
let receiver: Receiver;

before(async () => {
  h = await startWebhookHarness();
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await h.close();
});

/** The document with every $ref replaced by what it points at. */
async function resolvedDocument(): Promise<Json> {
  const res = await h.service.api.inject({ url: '/v1/openapi.json' });
  assert.equal(res.statusCode, 200, res.body);
  const validator = new Validator();
  const result = await validator.validate(res.json() as Json);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  return validator.resolveRefs() as Json;
}

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A copy of a schema in which every object schema that lists its properties admits no others, so
 * that an example (or a real body) with a field the document does not name fails.
 */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === 'examples' || key === 'example' || key === 'const' ? value : closed(value);
  }
  if (isObject(schema.properties) && !('additionalProperties' in schema)) out.additionalProperties = false;
  return out;
}

const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));

/** Problems of `value` against `schema` (closed), as text; empty when it is valid. */
function problemsOf(schema: unknown, value: unknown): string {
  const validate = ajv.compile(closed(schema) as Json);
  return validate(value) ? '' : JSON.stringify(validate.errors);
}

interface ExampleCheck {
  /** where the example is, e.g. paths./v1/orders.post.responses.201 */
  at: string;
  problem: string;
}

/** Every schema-level `examples` entry in a schema and its subschemas, checked against that schema. */
function checkSchemaExamples(schema: unknown, at: string, out: ExampleCheck[]): void {
  if (!isObject(schema)) return;
  for (const example of Array.isArray(schema.examples) ? schema.examples : []) {
    out.push({ at, problem: problemsOf(schema, example) });
  }
  if ('example' in schema) out.push({ at, problem: problemsOf(schema, schema.example) });
  for (const key of ['items', 'not', 'additionalProperties', 'contains']) {
    checkSchemaExamples(schema[key], `${at}.${key}`, out);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    const list = schema[key];
    if (Array.isArray(list)) list.forEach((s, i) => checkSchemaExamples(s, `${at}.${key}[${i}]`, out));
  }
  for (const key of ['properties', 'patternProperties', '$defs']) {
    const map = schema[key];
    if (isObject(map))
      for (const [name, s] of Object.entries(map)) checkSchemaExamples(s, `${at}.${name}`, out);
  }
}

/** A media type's or a parameter's `example` and `examples` ({name: {value}}), against its schema. */
function checkHolderExamples(holder: Json, at: string, out: ExampleCheck[]): void {
  checkSchemaExamples(holder.schema, `${at}.schema`, out);
  if ('example' in holder) out.push({ at, problem: problemsOf(holder.schema, holder.example) });
  if (isObject(holder.examples)) {
    for (const [name, example] of Object.entries(holder.examples)) {
      const value = isObject(example) ? example.value : undefined;
      out.push({ at: `${at}.examples.${name}`, problem: problemsOf(holder.schema, value) });
    }
  }
}

function checkOperation(operation: Json, at: string, out: ExampleCheck[]): void {
  const parameters = Array.isArray(operation.parameters) ? (operation.parameters as Json[]) : [];
  for (const p of parameters) checkHolderExamples(p, `${at}.parameters.${String(p.name)}`, out);
  const body = operation.requestBody;
  if (isObject(body) && isObject(body.content)) {
    for (const [type, media] of Object.entries(body.content)) {
      checkHolderExamples(media as Json, `${at}.requestBody.${type}`, out);
    }
  }
  for (const [status, response] of Object.entries((operation.responses as Json | undefined) ?? {})) {
    const content = isObject(response) ? response.content : undefined;
    if (!isObject(content)) continue;
    for (const [type, media] of Object.entries(content)) {
      checkHolderExamples(media as Json, `${at}.responses.${status}.${type}`, out);
    }
  }
}

/** Every example in the document, each with the problem it has against its schema ('' when none). */
function checkAllExamples(doc: Json): ExampleCheck[] {
  const out: ExampleCheck[] = [];
  const schemas = (doc.components as Json | undefined)?.schemas;
  for (const [name, schema] of Object.entries(isObject(schemas) ? schemas : {})) {
    checkSchemaExamples(schema, `components.schemas.${name}`, out);
  }
  for (const section of ['paths', 'webhooks']) {
    for (const [name, item] of Object.entries((doc[section] as Json | undefined) ?? {})) {
      for (const [method, operation] of Object.entries(item as Json)) {
        if (isObject(operation)) checkOperation(operation, `${section}.${name}.${method}`, out);
      }
    }
  }
  return out;
}

/** Each response's status with the `code` of each of its examples (media level and schema level). */
function responseCodes(doc: Json): Array<{ at: string; status: number; code: unknown }> {
  const out: Array<{ at: string; status: number; code: unknown }> = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      for (const [status, response] of Object.entries((operation as Json).responses as Json)) {
        const media = ((response as Json).content as Json | undefined)?.['application/json'] as
          Json | undefined;
        if (!media) continue;
        const at = `${method.toUpperCase()} ${path} ${status}`;
        const examples = [
          ...('example' in media ? [media.example] : []),
          ...Object.values(isObject(media.examples) ? media.examples : {}).map((e) => (e as Json).value),
        ];
        for (const example of examples) {
          if (isObject(example) && 'code' in example)
            out.push({ at, status: Number(status), code: example.code });
        }
        const code = ((media.schema as Json).properties as Json | undefined)?.code as Json | undefined;
        for (const example of (code?.examples as unknown[] | undefined) ?? []) {
          out.push({ at: `${at} (code property)`, status: Number(status), code: example });
        }
      }
    }
  }
  return out;
}

describe('the examples in GET /v1/openapi.json', () => {
  test('each is valid for its schema, in components, parameters, request bodies, responses and webhooks', async () => {
    const doc = await resolvedDocument();
    const checks = checkAllExamples(doc);
    const failures = checks.filter((c) => c.problem !== '');
    assert.deepEqual(failures, [], failures.map((f) => `${f.at}: ${f.problem}`).join('\n'));
    // Every kind of place holds examples that were checked.
    for (const place of [
      /^components\.schemas\.Error$/,
      /\.parameters\./,
      /\.requestBody\./,
      /^paths\..*\.responses\.2\d\d\./,
      /^paths\..*\.responses\.4\d\d\./,
      /^webhooks\.order\.paid\.post\.requestBody\./,
      /^webhooks\.test\.post\.requestBody\./,
    ]) {
      assert.ok(
        checks.some((c) => place.test(c.at)),
        `no example checked at ${place}`,
      );
    }
  });

  test('the check finds a wrong example: a field too many, a field missing, a wrong type', async () => {
    const doc = await resolvedDocument();
    const paid = (doc.webhooks as Json)['order.paid'] as Json;
    const media = () =>
      ((((paid.post as Json).requestBody as Json).content as Json)['application/json'] as Json)
        .example as Json;
    const data = () => media().data as Json;
    data().surprise = 1;
    assert.match(checkAllExamples(doc).find((c) => c.problem !== '')?.problem ?? '', /additionalProperties/);
    delete data().surprise;
    delete data().total;
    assert.match(checkAllExamples(doc).find((c) => c.problem !== '')?.problem ?? '', /required/);
    data().total = '52500';
    assert.match(checkAllExamples(doc).find((c) => c.problem !== '')?.problem ?? '', /integer/);
  });

  test("a response example's code is its status, 201 and 202 included", async () => {
    const doc = await resolvedDocument();
    const codes = responseCodes(doc);
    const wrong = codes.filter((c) => c.code !== c.status);
    assert.deepEqual(wrong, []);
    for (const status of [200, 201, 202, 400, 401, 403, 404, 409, 422, 429]) {
      assert.ok(
        codes.some((c) => c.status === status),
        `no example code checked for ${status}`,
      );
    }
  });
});

describe('the webhooks section', () => {
  function documented(doc: Json, event: string) {
    const post = ((doc.webhooks as Json)[event] as Json).post as Json;
    const media = ((post.requestBody as Json).content as Json)['application/json'] as Json;
    return { body: media.schema, headers: post.parameters as Json[], responses: post.responses as Json };
  }

  /** Each documented header is present in the request and valid for its schema. */
  function assertHeaders(headers: Json[], received: Record<string, unknown>) {
    assert.deepEqual(
      headers.map((p) => [p.in, p.required]),
      headers.map(() => ['header', true]),
    );
    for (const header of headers) {
      const value = received[String(header.name)];
      assert.equal(typeof value, 'string', `${String(header.name)} is sent`);
      assert.equal(problemsOf(header.schema, value), '', `${String(header.name)}: ${String(value)}`);
    }
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      assert.ok(
        headers.some((p) => p.name === name),
        name,
      );
    }
  }

  test('a real order.paid request matches the documented one, its data the Order of GET /v1/orders/{id}', async () => {
    const doc = await resolvedDocument();
    const { body, headers, responses } = documented(doc, 'order.paid');
    assert.ok(responses['2XX'], 'the receiver answers 2xx');

    const shop = await makeShop(h);
    const endpoint = await createEndpoint(h, shop.partner.organizationId, receiver.url);
    const order = await payFreeOrder(h, shop);
    const isOurs = (r: { headers: Record<string, unknown>; body: string }) =>
      r.body.includes(`"id":"${order.id}"`);
    await pump(h, () => receiver.requests.some(isOurs));
    const request = receiver.requests.find(isOurs)!;

    assertHeaders(headers, request.headers);
    const payload = verifyDelivery(endpoint.secret, request, h.clock.now());
    assert.equal(problemsOf(body, JSON.parse(request.body)), '');
    assert.equal(payload.type, 'order.paid');
    assert.deepEqual(payload.data, await readOrder(h, shop, order.id));
    // The same schema as GET /v1/orders/{orderId}: the documented data is that response's data.
    const getOrder = (doc.paths as Json)['/v1/orders/{orderId}'] as Json;
    const ok = (((getOrder.get as Json).responses as Json)['200'] as Json).content as Json;
    const orderSchema = ((ok['application/json'] as Json).schema as Json).properties as Json;
    assert.deepEqual(((body as Json).properties as Json).data, orderSchema.data);
    // The check can fail: a field the Order does not have is refused.
    assert.notEqual(problemsOf(body, { ...payload, data: { ...payload.data, extra: true } }), '');
  });

  test('a real test event matches the documented test request', async () => {
    const doc = await resolvedDocument();
    const { body, headers } = documented(doc, 'test');
    const shop = await makeShop(h);
    const endpoint = await createEndpoint(h, shop.partner.organizationId, receiver.url);
    const res = await h.service.api.inject({
      method: 'POST',
      url: `/v1/webhook-endpoints/${endpoint.id}/test`,
      headers: bearer(shop.token),
    });
    assert.equal(res.statusCode, 202, res.body);
    const isOurs = (r: { body: string }) => r.body.includes(`"endpoint_id":"${endpoint.id}"`);
    await pump(h, () => receiver.requests.some(isOurs));
    const request = receiver.requests.find(isOurs)!;

    assertHeaders(headers, request.headers);
    const payload = verifyDelivery(endpoint.secret, request, h.clock.now());
    assert.equal(payload.type, 'test');
    assert.equal(problemsOf(body, JSON.parse(request.body)), '');
  });
});
