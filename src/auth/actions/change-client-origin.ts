// Adds one origin to, or removes one from, a live client's list, in one statement each, so that
// two edits at once both stay; audited when the list changed.
import { recordAudit, type ActingOn } from '../../audit/index.ts';
import type { AppContext } from '../../context.ts';
import { invalid, notThere, type Outcome } from '../../platform/index.ts';
import { readClientLists } from '../client-lists.ts';
import { appendClientOrigin, dropClientOrigin, type ApiClientRow } from '../clients.ts';
import { CLIENT_REVOKED, clientAudit, findClientFor, type ClientRevoked } from './client-actor.ts';

/** As many entries as a list holds, as the admin API takes in one. */
export const MAX_CLIENT_ORIGINS = 100;

const COLUMN = { allowed_domains: 'allowedDomains', return_url_domains: 'returnUrlDomains' } as const;

export interface ChangeClientOriginOptions extends ActingOn {
  clientId: string;
  list: keyof typeof COLUMN;
  origin: string;
  change: 'add' | 'remove';
}

export interface ListFull {
  refused: 'list_full';
  max: number;
}

/** Done with whether the list changed (false: it had the origin already, or never had it). */
export async function changeClientOrigin(
  ctx: AppContext,
  { clientId, list, origin, change, ...on }: ChangeClientOriginOptions,
): Promise<Outcome<{ client: ApiClientRow; changed: boolean }, ClientRevoked | ListFull>> {
  const client = await findClientFor(ctx, on, clientId);
  if (!client) return notThere;
  if (client.revokedAt) return CLIENT_REVOKED;
  let canonical = origin;
  if (change === 'add') {
    const checked = readClientLists({ [list]: [origin] });
    if (checked.errors.length > 0) return invalid(checked.errors.map((e) => ({ ...e, field: list })));
    canonical = (list === 'allowed_domains' ? checked.allowedDomains : checked.returnUrlDomains)![0]!;
    if (client[COLUMN[list]].length >= MAX_CLIENT_ORIGINS)
      return { refused: 'list_full', max: MAX_CLIENT_ORIGINS };
  }
  const now = ctx.clock.now();
  const changed = await ctx.database.transaction(async (tx) => {
    const done =
      change === 'add'
        ? await appendClientOrigin(tx, client.id, COLUMN[list], canonical, MAX_CLIENT_ORIGINS, now)
        : await dropClientOrigin(tx, client.id, COLUMN[list], canonical, now);
    if (done) {
      const action = change === 'add' ? 'client.domain_added' : 'client.domain_removed';
      await recordAudit(tx, clientAudit(on, client, action, { list, origin: canonical }), now);
    }
    return done;
  });
  return { done: { client, changed } };
}
