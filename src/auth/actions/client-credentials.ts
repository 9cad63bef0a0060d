// A client's credentials replaced, and the client revoked, each audited once. A new secret stops
// the old one minting tokens at once (tokens already issued live until they expire); a new
// publishable key makes the old one invalid_key at once; a revoked client's key and tokens are
// refused on the next request. A revoked client's credentials cannot be replaced.
import { recordAudit, type ActingOn } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { notThere, type Outcome, type Tx } from '../../platform/index.ts';
import {
  markClientRevoked,
  replaceClientSecret,
  replacePublishableKey,
  type ApiClientRow,
} from '../clients.ts';
import { CLIENT_REVOKED, clientAudit, findClientFor, type ClientRevoked } from './client-actor.ts';

export interface ClientActionOptions extends ActingOn {
  clientId: string;
}

export function rotateClientSecret(
  ctx: AppContext,
  options: ClientActionOptions,
): Promise<Outcome<{ client: ApiClientRow; clientSecret: string }, ClientRevoked>> {
  return replaceCredential(ctx, options, replaceClientSecret, 'client.secret_rotated');
}

export function regeneratePublishableKey(
  ctx: AppContext,
  options: ClientActionOptions,
): Promise<Outcome<ApiClientRow, ClientRevoked>> {
  return replaceCredential(ctx, options, replacePublishableKey, 'client.publishable_key_regenerated');
}

/** A live client's credential replaced and audited in one transaction. */
async function replaceCredential<T>(
  ctx: AppContext,
  { clientId, ...on }: ClientActionOptions,
  replace: (tx: Tx, clientId: string, now: Date) => Promise<T | undefined>,
  action: 'client.secret_rotated' | 'client.publishable_key_regenerated',
): Promise<Outcome<T, ClientRevoked>> {
  const client = await findClientFor(ctx, on, clientId);
  if (!client) return notThere;
  if (client.revokedAt) return CLIENT_REVOKED;
  const now = ctx.clock.now();
  const replaced = await ctx.database.transaction(async (tx) => {
    const row = await replace(tx, client.id, now);
    if (row) await recordAudit(tx, clientAudit(on, client, action), now);
    return row;
  });
  // undefined: revoked in the meantime
  return replaced ? { done: replaced } : CLIENT_REVOKED;
}

/** Revoking again changes nothing (revoked_at stays), so it is recorded once. */
export async function revokeApiClient(
  ctx: AppContext,
  { clientId, ...on }: ClientActionOptions,
): Promise<Outcome<ApiClientRow>> {
  const client = await findClientFor(ctx, on, clientId);
  if (!client) return notThere;
  const now = ctx.clock.now();
  const row = await ctx.database.transaction(async (tx) => {
    const updated = await markClientRevoked(tx, client.id, now);
    if (updated && !client.revokedAt) await recordAudit(tx, clientAudit(on, client, 'client.revoked'), now);
    return updated;
  });
  return row ? { done: row } : notThere;
}
