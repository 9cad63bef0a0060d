// The checks the admin client routes share: the client named in the path, and the conflict a
// revoked client raises. Their lists are checked by auth/client-lists.ts.
import { findApiClient, type ApiClientRow } from '../../auth/clients.ts';
import type { AppContext } from '../../context.ts';
import { ApiError, notFound } from '../../platform/errors.ts';
import { assertId } from '../admin-schemas.ts';

export async function clientOr404(ctx: AppContext, clientId: string): Promise<ApiClientRow> {
  assertId(clientId, 'cli', 'client');
  const client = await findApiClient(ctx.database.db, clientId);
  if (!client) throw notFound('client');
  return client;
}

export function revokedConflict(): ApiError {
  return new ApiError('conflict', 'This client is revoked; create a new client instead.');
}
