// Pieces every admin route shares: path parameters, string rules with messages a person can read,
// the schema error formatter that uses them, and the guards that keep unusable input (broken
// Unicode, ids that cannot exist, impossible dates) away from the database.
import type { FastifyRequest, FastifySchemaValidationError } from 'fastify';
import type { ErrorObject } from 'ajv';
import { Type } from 'typebox';
import { MAX_PRICE_MINOR } from '../events/index.ts';
import {
  ErrorOut,
  fieldErrors,
  LONE_SURROGATE,
  notFound,
  validationError,
  type FieldError,
} from '../platform/index.ts';

/** The largest value a PostgreSQL integer column holds. */
export const MAX_INT = 2_147_483_647;

/** A ticket price: whole minor units up to the ceiling (docs/decisions/amount-ceilings.md). */
export const PriceMinor = Type.Integer({
  minimum: 0,
  maximum: MAX_PRICE_MINOR,
  description: `minor units; 0 = free; at most ${MAX_PRICE_MINOR}`,
});

export const SLUG_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';
export const CURRENCY_PATTERN = '^[A-Z]{3}$';
const EMAIL_OR_EMPTY_PATTERN = '^$|^[^\\s@]+@[^\\s@.]+(\\.[^\\s@.]+)+$';
export const URL_OR_EMPTY_PATTERN = '^$|^https?://[^\\s/?#]+[^\\s]*$';
const NOT_BLANK_PATTERN = '\\S';
export const QUESTION_KEY_PATTERN = '^[a-z][a-z0-9_]*$';
export const SHORT_CODE_PATTERN = '^[A-Za-z0-9_-]+$';

const PATTERN_MESSAGES: Record<string, string> = {
  [SLUG_PATTERN]:
    'must be lower-case letters and digits, words joined by single hyphens (e.g. city-half-2026)',
  [CURRENCY_PATTERN]: 'must be a three-letter ISO 4217 code in capitals, such as UGX',
  [EMAIL_OR_EMPTY_PATTERN]: 'must be an email address (or empty)',
  [URL_OR_EMPTY_PATTERN]: 'must be an http(s) URL (or empty)',
  [NOT_BLANK_PATTERN]: 'must not be blank',
  [QUESTION_KEY_PATTERN]: 'must start with a lower-case letter and hold only a-z, 0-9 and _',
  [SHORT_CODE_PATTERN]: 'must hold only letters, digits, - and _',
};

const FORMAT_MESSAGES: Record<string, string> = {
  'date-time': 'must be an ISO 8601 date-time with a time zone, such as 2026-12-06T05:00:00.000Z',
};

/** The platform's field errors, with the messages above in place of raw regular expressions. */
export function formatAdminSchemaErrors(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const readable = (errors as unknown as ErrorObject[]).map((e) => {
    const params = e.params as { pattern?: string; format?: string };
    let message: string | undefined;
    if (e.keyword === 'pattern' && params.pattern) message = PATTERN_MESSAGES[params.pattern];
    if (e.keyword === 'format' && params.format) message = FORMAT_MESSAGES[params.format];
    return message ? { ...e, message } : e;
  });
  return validationError(fieldErrors(readable, dataVar));
}

// ---------------------------------------------------------------------------------------------
// Reusable schemas

// The error body inline: adding the shared 'Error' schema by reference in this scope would make
// Fastify rebuild a default validator for it, losing the platform's (all errors, no coercion).
const AdminErrorOut = Type.Object(ErrorOut.properties);

/** Error responses of an admin route. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, AdminErrorOut]));
}

export const Name = Type.String({ maxLength: 200, pattern: NOT_BLANK_PATTERN });
export const EmailOrEmpty = Type.String({ maxLength: 254, pattern: EMAIL_OR_EMPTY_PATTERN });
export const DateTimeIn = Type.String({ format: 'date-time', maxLength: 40 });

export const IdParams = Type.Object({ id: Type.String() });
export const ClientIdParams = Type.Object({ client_id: Type.String() });

/** Action routes (revoke, rotate, regenerate) take no body: absent or `{}`. */
export const NoBody = Type.Object({}, { additionalProperties: false });

// ---------------------------------------------------------------------------------------------
// Guards

const ID = /^[a-z]{2,5}_[A-Za-z0-9]{8,64}$/;

/**
 * An id that cannot exist is simply not found: checked before any query, so a 200-character or
 * NUL-carrying path segment never reaches the database.
 */
export function assertId(value: string, prefix: string, what: string): void {
  if (!value.startsWith(`${prefix}_`) || !ID.test(value)) throw notFound(what);
}

/**
 * preValidation hook: every string in the body must be well-formed Unicode, or the database
 * driver would silently store U+FFFD in its place. (NUL is refused for every host by the platform.)
 * Walks iteratively, so a deeply nested body cannot exhaust the stack.
 */
export async function rejectBrokenUnicode(request: FastifyRequest): Promise<void> {
  const errors: FieldError[] = [];
  const stack: Array<{ value: unknown; path: string }> = [{ value: request.body, path: '' }];
  let visited = 0;
  while (stack.length > 0 && errors.length < 20 && visited++ < 100_000) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (LONE_SURROGATE.test(value))
        errors.push({ field: path || 'body', message: 'must be valid Unicode text' });
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, path: `${path}[${i}]` }));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        stack.push({ value: item, path: path ? `${path}.${key}` : key });
      }
    }
  }
  if (errors.length > 0) throw validationError(errors);
}

const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/** Fields whose text passed the date-time format yet is no real instant (e.g. a leap second). */
export function impossibleDates(values: object, fields: string[], prefix = ''): FieldError[] {
  const errors: FieldError[] = [];
  for (const field of fields) {
    const value = (values as Record<string, unknown>)[field];
    if (typeof value !== 'string') continue;
    const instant = Date.parse(value);
    if (!Number.isFinite(instant)) {
      errors.push({ field: `${prefix}${field}`, message: 'is not a real point in time' });
    } else if (instant < FIRST_INSTANT || instant > LAST_INSTANT) {
      // Year 0 passes the date-time format, but PostgreSQL has no year 0.
      errors.push({ field: `${prefix}${field}`, message: 'must be within the years 1 to 9999' });
    }
  }
  return errors;
}
