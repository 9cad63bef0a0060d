// The rules of a session's fields that need no database: every problem at once, for
// validation_failed (sessions.ts planCheckoutSession).
import { parseOrigin, type PartnerAuth } from '../auth/index.ts';
import {
  dialCodeOf,
  isEmail,
  MAX_TICKETS_PER_ORDER,
  normalizePhone,
  phoneWords,
  type PhoneCountry,
} from '../orders/index.ts';
import type { FieldError } from '../platform/index.ts';
import { collect, embedOriginProblem, returnUrlProblem } from './return-urls.ts';
import type { CheckoutSessionIn } from './sessions.ts';

export const MAX_CLIENT_REFERENCE_LENGTH = 256;

/** The session's field rules; embedOrigin is the origin the modal may open in, when valid. */
export function checkSessionFields(
  auth: PartnerAuth,
  input: CheckoutSessionIn,
  /** whose numbers the event's buyers pay from (Uganda when the event is not found) */
  country: PhoneCountry,
): { errors: FieldError[]; embedOrigin: string | null } {
  const errors: FieldError[] = [];
  const uiMode = input.ui_mode ?? 'redirect';
  for (const field of ['on_success_url', 'on_cancel_url'] as const) {
    const value = input[field];
    if (value === undefined) {
      if (uiMode === 'redirect') errors.push({ field, message: 'is required for redirect sessions' });
    } else {
      collect(errors, field, returnUrlProblem(value, auth.returnUrlDomains));
    }
  }
  let embedOrigin: string | null = null;
  if (uiMode === 'embedded') {
    if (auth.kind === 'publishable') {
      // The page calling with the key is the page that will host the modal; body embed_origin is ignored.
      embedOrigin = auth.origin;
    } else if (input.embed_origin === undefined) {
      errors.push({
        field: 'embed_origin',
        message: 'is required for embedded sessions created with a bearer token',
      });
    } else {
      const problem = embedOriginProblem(input.embed_origin);
      collect(errors, 'embed_origin', problem);
      if (!problem) embedOrigin = parseOrigin(input.embed_origin);
    }
  }
  if (input.client_reference_id !== undefined) {
    if (input.client_reference_id.length > MAX_CLIENT_REFERENCE_LENGTH) {
      errors.push({
        field: 'client_reference_id',
        message: `must be at most ${MAX_CLIENT_REFERENCE_LENGTH} characters`,
      });
    } else if (input.client_reference_id.length === 0) {
      errors.push({
        field: 'client_reference_id',
        message: 'must not be empty; leave the field out instead',
      });
    }
  }
  const prefill = input.prefill ?? {};
  if (prefill.buyer_email !== undefined && !isEmail(prefill.buyer_email)) {
    errors.push({ field: 'prefill.buyer_email', message: 'must be an e-mail address' });
  }
  if (prefill.buyer_phone !== undefined && normalizePhone(prefill.buyer_phone, country) === null) {
    errors.push({
      field: 'prefill.buyer_phone',
      message: `must be ${phoneWords(country)} or +${dialCodeOf(country)} and the 9 digits`,
    });
  }
  if (prefill.buyer_name !== undefined && prefill.buyer_name.trim().length === 0) {
    errors.push({ field: 'prefill.buyer_name', message: 'must not be blank' });
  }
  const items = input.line_items ?? [];
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.ticket_type_id)) {
      errors.push({
        field: `line_items[${i}].ticket_type_id`,
        message: 'names a ticket type already listed',
      });
    }
    seen.add(item.ticket_type_id);
  });
  if (items.reduce((sum, item) => sum + item.quantity, 0) > MAX_TICKETS_PER_ORDER) {
    errors.push({ field: 'line_items', message: `must add up to at most ${MAX_TICKETS_PER_ORDER} tickets` });
  }
  return { errors, embedOrigin };
}
