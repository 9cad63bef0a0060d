// Creates an API client unless its organization already has as many live ones as it may
// (API_CLIENTS_PER_ORGANIZATION), audited; the plain secret is in the answer and never again.
import { recordAudit, type Actor } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { invalid, type Outcome } from '../../platform/index.ts';
import { readClientLists, type ClientLists } from '../client-lists.ts';
import { insertApiClientWithinLimit, type ApiClientRow } from '../clients.ts';
import { clientAudit } from './client-actor.ts';

export interface CreateApiClientOptions extends ClientLists {
  actor: Actor;
  organizationId: string;
  name: string;
}

export interface ClientLimitReached {
  refused: 'client_limit_reached';
  live: number;
  limit: number;
}

export async function createApiClient(
  ctx: AppContext,
  { actor, organizationId, name, ...given }: CreateApiClientOptions,
): Promise<Outcome<{ client: ApiClientRow; clientSecret: string }, ClientLimitReached>> {
  const lists = readClientLists(given);
  if (lists.errors.length > 0) return invalid(lists.errors);
  return ctx.database.transaction(async (tx) => {
    const created = await insertApiClientWithinLimit(
      tx,
      {
        organizationId,
        name,
        displayName: lists.displayName ?? null,
        scopes: lists.scopes ?? [],
        allowedDomains: lists.allowedDomains ?? [],
        returnUrlDomains: lists.returnUrlDomains ?? [],
      },
      ctx.config.apiClientsPerOrganization,
    );
    if (!created.created)
      return { refused: 'client_limit_reached' as const, live: created.live, limit: created.limit };
    const { client, clientSecret } = created;
    const details = {
      name: client.name,
      display_name: client.displayName,
      scopes: client.scopes,
      allowed_domains: client.allowedDomains,
      return_url_domains: client.returnUrlDomains,
    };
    await recordAudit(tx, clientAudit({ actor }, client, 'client.created', details), ctx.clock.now());
    return { done: { client, clientSecret } };
  });
}
