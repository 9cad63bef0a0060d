// The API client an action acts on, found within the actor's organization, and its audit entries
// (never with a secret in them).
import { withinReach, type ActingOn, type AuditAction } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { findApiClient, type ApiClientRow } from '../clients.ts';

export async function findClientFor(
  ctx: AppContext,
  on: ActingOn,
  clientId: string,
): Promise<ApiClientRow | undefined> {
  return withinReach(on, await findApiClient(ctx.database.db, clientId));
}

export function clientAudit(
  on: ActingOn,
  client: ApiClientRow,
  action: AuditAction,
  details?: Record<string, unknown>,
) {
  return {
    organizationId: client.organizationId,
    actor: on.actor,
    action,
    targetType: 'client' as const,
    targetId: client.id,
    ...(details && { details }),
  };
}

/** A change refused because the client is revoked: a new client is the way on. */
export interface ClientRevoked {
  refused: 'client_revoked';
}
export const CLIENT_REVOKED: ClientRevoked = { refused: 'client_revoked' };
