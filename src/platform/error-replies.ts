// Errors as every host answers them: anything thrown mapped to one ApiError, the envelope (or the
// OAuth shape on the token endpoint) with the request id, and how each failure is logged.
import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { databaseUnavailable, SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from './db-errors.ts';
import { ApiError, BODY_LIMIT_BYTES } from './errors.ts';
import { isShedError } from './overload.ts';
import type { ErrorOut } from './schemas.ts';
import { fieldErrors } from './validation.ts';

/** Maps anything thrown to an ApiError; the only place error bodies are decided. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (databaseUnavailable(error)) return databaseUnavailableError();
  const e = error as FastifyError & { validation?: ErrorObject[]; validationContext?: string };
  if (e && Array.isArray(e.validation)) {
    const errors = fieldErrors(e.validation, e.validationContext);
    const first = errors[0];
    return new ApiError(
      'validation_failed',
      first ? `${first.field} ${first.message}` : 'The request is not valid.',
      {
        errors,
      },
    );
  }
  switch (e?.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send the request body as application/json.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', `The request body is larger than ${BODY_LIMIT_BYTES} bytes.`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('validation_failed', 'The request body is empty; send a JSON object.', {
        errors: [{ field: 'body', message: 'is empty' }],
      });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('validation_failed', 'The request body is not valid JSON.', {
        errors: [{ field: 'body', message: 'is not valid JSON' }],
      });
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_MAX_PARAM_LENGTH': // a path parameter too long for the router names nothing
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return new ApiError('not_found', 'No such route.');
  }
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (e instanceof SyntaxError && status === 400) {
    return new ApiError('validation_failed', 'The request body is not valid JSON.', {
      errors: [{ field: 'body', message: 'is not valid JSON' }],
    });
  }
  if (status === 404) return new ApiError('not_found', 'No such route.');
  if (status === 405) return new ApiError('method_not_allowed', 'Method not allowed on this route.');
  if (status === 413)
    return new ApiError('payload_too_large', `The request body is larger than ${BODY_LIMIT_BYTES} bytes.`);
  if (status === 415)
    return new ApiError('unsupported_media_type', 'Send the request body as application/json.');
  if (status >= 400 && status < 500) return new ApiError('validation_failed', 'The request is not valid.');
  return new ApiError('internal_error', 'Something went wrong on our side. Quote the request id to support.');
}

/** 503 while the database cannot be reached: the request may be retried as it is. */
export function databaseUnavailableError(): ApiError {
  return new ApiError('service_unavailable', 'The service is briefly unavailable; retry in a few seconds.', {
    headers: { 'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS) },
  });
}

const REALM = 'Bearer realm="service-partner"';

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError) {
  reply.header('X-Request-Id', request.id);
  reply.errorCode = error.code;
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (error.status === 401 && !reply.hasHeader('WWW-Authenticate')) reply.header('WWW-Authenticate', REALM);
  const body: ErrorOut = {
    code: error.status,
    message: error.message,
    error_code: error.code,
    request_id: request.id,
  };
  if (error.errors) body.errors = error.errors;
  return reply.code(error.status).type('application/json; charset=utf-8').send(body);
}

/** OAuth 2.0 error response (RFC 6749 section 5.2), used by the token endpoint. */
export function sendOAuthError(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
) {
  reply.errorCode = error;
  for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  return reply
    .code(status)
    .header('Cache-Control', 'no-store')
    .header('Pragma', 'no-cache')
    .type('application/json; charset=utf-8')
    .send({ error, error_description: description });
}

export const OAUTH_ERRORS: Record<number, [number, string]> = {
  429: [429, 'rate_limited'],
  500: [500, 'server_error'],
  503: [503, 'temporarily_unavailable'],
};

/**
 * How a failed request is logged, on every host: an unreachable database once per outage (its
 * watch), a shed request not at all (the overload monitor logs each episode), another 5xx with
 * its error, a 4xx as one info line.
 */
export function logRequestError(
  ctx: AppContext,
  request: FastifyRequest,
  error: unknown,
  apiError: ApiError,
  message: string,
): void {
  if (isShedError(error)) return;
  if (databaseUnavailable(error)) ctx.outage.failed(error);
  else if (apiError.status >= 500) request.log.error({ err: error }, message);
  else request.log.info({ error_code: apiError.code }, apiError.message);
}
