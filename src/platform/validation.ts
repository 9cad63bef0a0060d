// Validation of every host's requests: bodies as typed JSON, query strings and paths coerced from
// text, and ajv's errors as field errors a person can read; responses serialized by their schemas.
import type { FastifySchemaCompiler } from 'fastify';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FieldError } from './errors.ts';

// ajv-formats is published as CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}
// Bodies are taken as typed JSON (a "5" is not a number); query strings and paths are text, so coerce.
const bodyAjv = makeAjv(false);
const queryAjv = makeAjv(true);

/** The compilations put off so far; compileEverySchema() runs them. */
const pending = new Set<() => unknown>();

/** `make` run once, when first needed, or by compileEverySchema(). */
function onFirstUse<T>(make: () => T): () => T {
  let made: T | undefined;
  const get = () => {
    if (made === undefined) {
      made = make();
      pending.delete(get);
    }
    return made;
  };
  pending.add(get);
  return get;
}

/**
 * Compiles every validator and serializer not compiled yet, so that a schema ajv or
 * fast-json-stringify refuses fails here (a test calls it) rather than at a route's first request.
 * Returns how many it compiled.
 */
export function compileEverySchema(): number {
  const count = pending.size;
  for (const compile of [...pending]) compile();
  return count;
}

// Compiled at a route's first request, not at start: a start (each CLI run, each test's service)
// would otherwise compile every route's schemas, most of which it never uses.
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : queryAjv;
  const compiled = onFirstUse(() => ajv.compile(schema));
  const validate = (data: unknown) => {
    const check = compiled();
    const valid = check(data);
    validate.errors = check.errors;
    return valid;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate as ReturnType<FastifySchemaCompiler<object>>;
};

/**
 * Fastify's own response serializers (fast-json-stringify), each compiled at its route's first
 * response rather than at start, as the validators are.
 */
export const buildSerializer: SerializerSelector.SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  return (route) => {
    const serialize = onFirstUse(() => compile(route));
    return (doc) => serialize()(doc);
  };
};

/** ajv errors -> [{field, message}] with dotted field paths a person can read. */
export function fieldErrors(errors: ErrorObject[], part?: string): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    let path = e.instancePath
      .replace(/^\//, '')
      .replace(/\//g, '.')
      .replace(/\.(\d+)(?=\.|$)/g, '[$1]');
    let message = e.message ?? 'is not valid';
    if (e.keyword === 'required') {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      path = path ? `${path}.${missing}` : missing;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      const extra = (e.params as { additionalProperty: string }).additionalProperty;
      path = path ? `${path}.${extra}` : extra;
      message = 'is not a recognised field';
    } else if (e.keyword === 'enum') {
      message = `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    } else if (e.keyword === 'anyOf' || e.keyword === 'oneOf') {
      continue; // the branch errors say more
    }
    if (!path) path = part === 'querystring' ? 'query' : part === 'body' ? 'body' : (part ?? 'request');
    const key = `${path}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field: path, message });
  }
  return out;
}
