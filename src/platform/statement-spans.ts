// Database statements as CLIENT spans and transactions as INTERNAL ones (OpenTelemetry's database
// conventions), made only inside another span; tracing.ts holds the tracer and the other spans.
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import {
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_RESPONSE_STATUS_CODE,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import { activeTracer } from './tracing.ts';

/** What a span tells of a statement: its operation, and the table it names first if found. */
export interface StatementSummary {
  /** the first keyword, upper-case: SELECT, INSERT, UPDATE, DELETE, WITH, ... */
  operation: string;
  /** the table read (SELECT ... FROM), written (INSERT INTO, UPDATE) or deleted from; null if not found */
  table: string | null;
}

/** white space and comments before a statement's first keyword */
const LEADING_NOISE = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/;
/** a table's name, quoted or not */
const NAME = String.raw`(?:"([^"]+)"|([a-z_][\w$]*))(?![\w$"])`;
const TARGETS: Partial<Record<string, RegExp>> = {
  // after FROM, not a function's name (an opening parenthesis after it)
  SELECT: new RegExp(String.raw`\bfrom\s+${NAME}(?!\s*\()`, 'i'),
  INSERT: new RegExp(String.raw`^insert\s+into\s+${NAME}`, 'i'),
  UPDATE: new RegExp(String.raw`^update\s+(?:only\s+)?${NAME}`, 'i'),
  DELETE: new RegExp(String.raw`^delete\s+from\s+(?:only\s+)?${NAME}`, 'i'),
};

/**
 * A statement's operation and table, read from its text for the span's name (`SELECT orders`).
 * Not a parser: a SELECT is named by the first table after a FROM, and a WITH statement by its
 * keyword alone.
 */
export function describeStatement(text: string): StatementSummary {
  const body = text.slice(LEADING_NOISE.exec(text)?.[0].length ?? 0);
  const operation = /^[a-z]+/i.exec(body)?.[0].toUpperCase() ?? 'SQL';
  const target = TARGETS[operation]?.exec(body);
  return { operation, table: target ? (target[1] ?? target[2] ?? null) : null };
}

/**
 * One database statement as a CLIENT span (OpenTelemetry's database conventions), named
 * `<operation> <table>`, with its text as sent, placeholders and all: its parameters' values are
 * never recorded. Made only inside another span (a request, a job, a delivery), as the pg
 * instrumentation's requireParentSpan does: the claims that background loops make every half
 * second would otherwise each be a trace of their own. Off, `run` runs as it is.
 */
export function traceStatement<T>(text: string, run: () => Promise<T>): Promise<T> {
  const active = activeTracer();
  if (active === null) return run();
  const parent = context.active();
  if (trace.getSpan(parent) === undefined) return run();
  const { operation, table } = describeStatement(text);
  const span = active.startSpan(
    table === null ? operation : `${operation} ${table}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
        [ATTR_DB_OPERATION_NAME]: operation,
        [ATTR_DB_QUERY_TEXT]: text,
      },
    },
    parent,
  );
  return endWith(span, run);
}

/**
 * A transaction as one span, `transaction`, whose statements are its children: INTERNAL, since
 * its statements are the calls out. Like a statement's, made only inside another span.
 */
export function traceTransaction<T>(run: () => Promise<T>): Promise<T> {
  const active = activeTracer();
  if (active === null || trace.getSpan(context.active()) === undefined) return run();
  return active.startActiveSpan(
    'transaction',
    { kind: SpanKind.INTERNAL, attributes: { [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL } },
    (span) => endWith(span, run),
  );
}

/**
 * Runs `run` and ends `span` with it. A failure is recorded by its SQLSTATE (or the error's class),
 * never by its message: a failed statement's message holds its parameters.
 */
async function endWith<T>(span: Span, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const code = sqlState(error);
    if (code !== null) span.setAttribute(ATTR_DB_RESPONSE_STATUS_CODE, code);
    span.setAttribute(ATTR_ERROR_TYPE, code ?? (error instanceof Error ? error.name : 'error'));
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

/** The SQLSTATE along an error's causes (a DrizzleQueryError wraps the driver's), if any. */
function sqlState(error: unknown): string | null {
  let e = error;
  for (let depth = 0; e !== null && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}
