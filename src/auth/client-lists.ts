// The lists of an API client as partners and organizers send them: scopes and origins, each bad
// entry named in one answer (the admin API and the organizer app's developer settings).
import { ALL_SCOPES, isScope, type Scope } from './scopes.ts';
import { parseOrigin } from './origins.ts';
import { validationError, type FieldError } from '../platform/errors.ts';

const ORIGIN_MESSAGE =
  'must be an origin such as https://shop.example.org or http://localhost:5173 (https, or http for localhost and 127.0.0.1 with a port; no path, no trailing slash)';

/** The lists a client's create or change may carry, as the wire names them. */
export interface ClientLists {
  scopes?: string[] | undefined;
  allowed_domains?: string[] | undefined;
  return_url_domains?: string[] | undefined;
}

/** Checks scopes and origins together, so one answer names every bad entry; returns canonical forms. */
export function checkClientLists(body: ClientLists): {
  scopes: Scope[] | undefined;
  allowedDomains: string[] | undefined;
  returnUrlDomains: string[] | undefined;
} {
  const errors: FieldError[] = [];
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
  if (errors.length > 0) throw validationError(errors);
  return { scopes, allowedDomains, returnUrlDomains };
}
