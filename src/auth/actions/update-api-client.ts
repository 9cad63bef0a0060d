// Changes an API client's name, display name (null removes it), scopes and origin lists; one audit
// entry per thing that changed (a name, the scopes, each origin added or removed), none when
// nothing did.
import { recordAudit, type ActingOn } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { invalid, notThere, type Outcome } from '../../platform/index.ts';
import { readClientLists, type ClientLists } from '../client-lists.ts';
import { patchApiClient, type ApiClientRow } from '../clients.ts';
import { clientAudit, findClientFor } from './client-actor.ts';

export interface UpdateApiClientOptions extends ActingOn, ClientLists {
  clientId: string;
  name?: string | undefined;
}

export async function updateApiClient(
  ctx: AppContext,
  {
    clientId,
    name,
    scopes,
    allowed_domains,
    return_url_domains,
    display_name,
    ...on
  }: UpdateApiClientOptions,
): Promise<Outcome<ApiClientRow>> {
  const client = await findClientFor(ctx, on, clientId);
  if (!client) return notThere;
  const lists = readClientLists({ scopes, allowed_domains, return_url_domains, display_name });
  if (lists.errors.length > 0) return invalid(lists.errors);
  const now = ctx.clock.now();
  const row = await ctx.database.transaction(async (tx) => {
    const updated = await patchApiClient(
      tx,
      client.id,
      {
        name,
        displayName: lists.displayName,
        scopes: lists.scopes,
        allowedDomains: lists.allowedDomains,
        returnUrlDomains: lists.returnUrlDomains,
      },
      now,
    );
    if (updated) {
      for (const change of clientChanges(client, updated)) {
        await recordAudit(tx, clientAudit(on, updated, change.action, change.details), now);
      }
    }
    return updated;
  });
  return row ? { done: row } : notThere;
}

const LISTS = [
  ['allowedDomains', 'allowed_domains'],
  ['returnUrlDomains', 'return_url_domains'],
] as const;

type ClientChange = { action: Parameters<typeof clientAudit>[2]; details: Record<string, unknown> };

/** What a change did, one entry each: its name, display name, scopes, each origin added or removed. */
function clientChanges(before: ApiClientRow, after: ApiClientRow): ClientChange[] {
  const changes: ClientChange[] = [];
  if (before.name !== after.name) changes.push({ action: 'client.renamed', details: { name: after.name } });
  if (before.displayName !== after.displayName) {
    changes.push({ action: 'client.display_name_changed', details: { display_name: after.displayName } });
  }
  if ([...before.scopes].sort().join() !== [...after.scopes].sort().join()) {
    changes.push({ action: 'client.scopes_changed', details: { scopes: after.scopes } });
  }
  for (const [column, list] of LISTS) {
    const [was, is] = [new Set(before[column]), new Set(after[column])];
    for (const origin of is) {
      if (!was.has(origin)) changes.push({ action: 'client.domain_added', details: { list, origin } });
    }
    for (const origin of was) {
      if (!is.has(origin)) changes.push({ action: 'client.domain_removed', details: { list, origin } });
    }
  }
  return changes;
}
