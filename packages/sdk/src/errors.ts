// The SDK's errors. Every failed API call throws a TicketingError carrying the service's error
// envelope (error_code, request_id, field errors); a network failure that outlived its retries is
// one too, with status 0, so callers catch a single class.

export interface FieldError {
  field: string;
  message: string;
}

export interface TicketingErrorInit {
  status: number;
  errorCode: string;
  message: string;
  requestId?: string | undefined;
  errors?: FieldError[] | undefined;
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

export class TicketingError extends Error {
  /** HTTP status; 0 when no response came (network error). */
  readonly status: number;
  /** The envelope's error_code (e.g. validation_failed, not_found, invalid_token), or network_error. */
  readonly errorCode: string;
  /** X-Request-Id / request_id of the failed call: quote it to support. */
  readonly requestId: string | undefined;
  /** Field errors of a 422 validation_failed. */
  readonly errors: FieldError[];
  /** Retry-After of the last answer, in milliseconds, when it had one. */
  readonly retryAfterMs: number | undefined;

  constructor(init: TicketingErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'TicketingError';
    this.status = init.status;
    this.errorCode = init.errorCode;
    this.requestId = init.requestId;
    this.errors = init.errors ?? [];
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** A webhook whose signature, timestamp or body did not verify: answer it 400 and do nothing. */
export class WebhookVerificationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebhookVerificationError';
  }
}
