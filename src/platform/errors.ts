// The one registry of error codes. Code throws ApiError(code, message); one handler renders the envelope.

export const ERROR_STATUS = {
  validation_failed: 400,
  invalid_cursor: 400,
  invalid_embed_origin: 400,
  invalid_token: 401,
  invalid_key: 401,
  partner_credential_not_accepted: 401,
  unauthorized: 401,
  insufficient_scope: 403,
  origin_not_allowed: 403,
  payments_disabled: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  sale_closed: 409,
  sold_out: 409,
  order_not_payable: 409,
  idempotency_key_in_use: 409,
  conflict: 409,
  client_limit_reached: 409,
  webhook_endpoint_exists: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  expectation_failed: 417,
  idempotency_key_reused: 422,
  amount_below_minimum: 422,
  amount_too_large: 422,
  refund_not_possible: 422,
  rate_limited: 429,
  hold_limit_reached: 429,
  prompt_limit_reached: 429,
  request_header_fields_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

export function validationError(errors: FieldError[], message?: string): ApiError {
  const first = errors[0];
  return new ApiError(
    'validation_failed',
    message ?? (first ? `${first.field}: ${first.message}` : 'The request is not valid.'),
    { errors },
  );
}

export function notFound(what = 'resource'): ApiError {
  return new ApiError('not_found', `No such ${what}.`);
}

/** The same field error reported twice by two checks is reported once. */
export function uniqueErrors(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.field}|${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The largest request body a host reads; past it, 413 payload_too_large. */
export const BODY_LIMIT_BYTES = 64 * 1024;
