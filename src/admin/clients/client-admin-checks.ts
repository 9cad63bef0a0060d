// What the admin client routes share: the client id of the path checked (400), and each refusal of
// a client action as the admin API answers it. The rules are the actions' (auth/actions/).
import {
  clientLimitMessage,
  findApiClient,
  type ApiClientRow,
  type ClientLimitReached,
  type ClientRevoked,
  type ListFull,
} from '../../auth/index.ts';
import type { AppContext } from '../../context.ts';
import { ApiError, notFound, refusalError, type Refusal } from '../../platform/index.ts';
import { assertId } from '../admin-schemas.ts';

/** The client id of the path, or 400 when it cannot be one. */
export function clientIdOf(clientId: string): string {
  assertId(clientId, 'cli', 'client');
  return clientId;
}

export async function clientOr404(ctx: AppContext, clientId: string): Promise<ApiClientRow> {
  const client = await findApiClient(ctx.database.db, clientIdOf(clientId));
  if (!client) throw notFound('client');
  return client;
}

export function clientRefusal(refusal: Refusal | ClientRevoked | ClientLimitReached | ListFull): ApiError {
  if (refusal.refused === 'client_revoked')
    return new ApiError('conflict', 'This client is revoked; create a new client instead.');
  if (refusal.refused === 'client_limit_reached')
    return new ApiError('client_limit_reached', clientLimitMessage(refusal));
  if (refusal.refused === 'list_full')
    return new ApiError('validation_failed', `A list holds at most ${refusal.max} origins.`);
  return refusalError(refusal, 'client');
}
