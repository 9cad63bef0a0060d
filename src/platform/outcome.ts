// What a business action answers when it does not do its write: a refusal each interface turns
// into its own words (an API error, a form's field errors, an error page), so the rule behind it
// is stated once, in the action.
import { ApiError, notFound, validationError, type FieldError } from './errors.ts';

export type Refusal =
  /** the object is not there, or belongs to another organization */
  | { refused: 'not_found' }
  /** the input breaks a rule; each error names the field by its API name */
  | { refused: 'invalid'; errors: FieldError[] }
  /** the write would break a rule of the stored state; `field` names the input to change */
  | { refused: 'conflict'; message: string; field?: string };

/** An action's answer: its result, a common refusal, or a refusal of its own (`R`). */
export type Outcome<T, R = never> = { done: T } | Refusal | R;

export const notThere: Refusal = { refused: 'not_found' };

export function invalid(errors: FieldError[]): Refusal {
  return { refused: 'invalid', errors };
}

export function conflict(message: string, field?: string): Refusal {
  return { refused: 'conflict', message, ...(field !== undefined && { field }) };
}

/** The API's answer to a common refusal: 404 naming `what`, 400 with the field errors, or 409. */
export function refusalError(refusal: Refusal, what: string): ApiError {
  if (refusal.refused === 'not_found') return notFound(what);
  if (refusal.refused === 'invalid') return validationError(refusal.errors);
  return new ApiError('conflict', refusal.message);
}
