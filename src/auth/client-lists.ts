// The lists of an API client as partners and organizers send them: scopes and origins, each bad
// entry named in one answer (the admin API and the organizer app's developer settings), and the
// display name buyers see, checked in the same answer.
import { ALL_SCOPES, isScope, type Scope } from './scopes.ts';
import { parseOrigin } from './origins.ts';
import { validationError, type FieldError } from '../platform/index.ts';

const ORIGIN_MESSAGE =
  'must be an origin such as https://shop.example.org or http://localhost:5173 (https, or http for localhost and 127.0.0.1 with a port; no path, no trailing slash)';

export const DISPLAY_NAME_MAX_LENGTH = 60;

// C0/C1 controls, line and paragraph separators, and the bidirectional embeddings, overrides and
// isolates: a name on the buyer's buttons must neither break lines nor reorder the text around it.
const DISPLAY_NAME_CONTROLS = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/**
 * A display name as stored (trimmed: 1 to 60 characters, no control characters), or what is
 * wrong with it, in words that follow the field's name.
 */
export function checkDisplayName(value: string): { value: string } | { message: string } {
  const trimmed = value.trim();
  if (trimmed === '') return { message: 'must not be blank' };
  if ([...trimmed].length > DISPLAY_NAME_MAX_LENGTH) {
    return { message: `must be at most ${DISPLAY_NAME_MAX_LENGTH} characters` };
  }
  if (DISPLAY_NAME_CONTROLS.test(trimmed)) {
    return { message: 'must not contain control characters such as line breaks, tabs or direction marks' };
  }
  return { value: trimmed };
}

/** The lists a client's create or change may carry, as the wire names them (and its display name). */
export interface ClientLists {
  scopes?: string[] | undefined;
  allowed_domains?: string[] | undefined;
  return_url_domains?: string[] | undefined;
  /** null removes it (on a change) */
  display_name?: string | null | undefined;
}

export interface CheckedClientLists {
  scopes: Scope[] | undefined;
  allowedDomains: string[] | undefined;
  returnUrlDomains: string[] | undefined;
  displayName: string | null | undefined;
}

/** checkClientLists, throwing validation_failed when anything is wrong. */
export function checkClientLists(body: ClientLists): CheckedClientLists {
  const { errors, ...lists } = readClientLists(body);
  if (errors.length > 0) throw validationError(errors);
  return lists;
}

/**
 * Checks scopes, origins and the display name together, so one answer names every bad entry;
 * returns canonical forms (undefined: not sent; a null display name: none) and the errors.
 */
export function readClientLists(body: ClientLists): CheckedClientLists & { errors: FieldError[] } {
  const errors: FieldError[] = [];
  let displayName = body.display_name;
  if (typeof displayName === 'string') {
    const checked = checkDisplayName(displayName);
    if ('message' in checked) errors.push({ field: 'display_name', message: checked.message });
    else displayName = checked.value;
  }
  const scopes = body.scopes?.filter((scope, i) => {
    if (isScope(scope)) return true;
    errors.push({
      field: `scopes[${i}]`,
      message: `is not a known scope; use any of: ${ALL_SCOPES.join(', ')}`,
    });
    return false;
  }) as Scope[] | undefined;
  const origins = (field: 'allowed_domains' | 'return_url_domains') =>
    body[field]?.map((value, i) => {
      const origin = parseOrigin(value);
      if (origin === null) errors.push({ field: `${field}[${i}]`, message: ORIGIN_MESSAGE });
      return origin ?? '';
    });
  const allowedDomains = origins('allowed_domains');
  const returnUrlDomains = origins('return_url_domains');
  return { scopes, allowedDomains, returnUrlDomains, displayName, errors };
}
