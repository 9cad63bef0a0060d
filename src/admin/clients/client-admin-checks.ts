// The checks the admin client routes share: scopes and origins (every bad entry in one answer),
// the client named in the path, and the conflict a revoked client raises.
import type { Static } from 'typebox';
import { findApiClient, type ApiClientRow } from '../../auth/clients.ts';
import { parseOrigin } from '../../auth/origins.ts';
import { ALL_SCOPES, isScope, type Scope } from '../../auth/scopes.ts';
import type { AppContext } from '../../context.ts';
import { ApiError, notFound, validationError, type FieldError } from '../../platform/errors.ts';
import { assertId } from '../admin-schemas.ts';
import type { ClientPatchIn } from './client-admin.schema.ts';

const ORIGIN_MESSAGE =
  'must be an origin such as https://shop.example.org or http://localhost:5173 (https, or http for localhost and 127.0.0.1 with a port; no path, no trailing slash)';

/** The lists a create or a patch may carry. */
type ClientLists = Pick<Static<typeof ClientPatchIn>, 'scopes' | 'allowed_domains' | 'return_url_domains'>;

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

export async function clientOr404(ctx: AppContext, clientId: string): Promise<ApiClientRow> {
  assertId(clientId, 'cli', 'client');
  const client = await findApiClient(ctx.database.db, clientId);
  if (!client) throw notFound('client');
  return client;
}

export function revokedConflict(): ApiError {
  return new ApiError('conflict', 'This client is revoked; create a new client instead.');
}
