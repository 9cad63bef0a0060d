// The operator's changes in each organization's audit log. The admin API, and the CLI that calls
// it, act as "operator" with the request's client IP; each entry is written in the change's
// transaction.
import type { FastifyRequest } from 'fastify';
import { OPERATOR_LABEL, recordAudit, type Actor, type AuditEntry } from '../audit/audit-log.ts';
import type { ApiClientRow } from '../auth/clients.ts';
import type { AppContext } from '../context.ts';
import type { Executor, Tx } from '../platform/db.ts';

export type Change = Omit<AuditEntry, 'organizationId' | 'actor'>;

/** The operator as the actor of a request's change. */
export function operatorOf(request: FastifyRequest): Actor {
  return { memberId: null, label: OPERATOR_LABEL, ip: request.ip };
}

export async function auditAsOperator(
  db: Executor,
  request: FastifyRequest,
  organizationId: string,
  changes: Change[],
  now: Date,
): Promise<void> {
  const actor = operatorOf(request);
  for (const change of changes) await recordAudit(db, { ...change, organizationId, actor }, now);
}

/**
 * Runs `work` in a transaction and records `changes` there as the operator's, when the work
 * changed something (a truthy result).
 */
export function auditedAsOperator<T>(
  ctx: AppContext,
  request: FastifyRequest,
  at: { organizationId: string; now: Date },
  changes: Change[],
  work: (tx: Tx) => Promise<T>,
): Promise<T> {
  return ctx.database.transaction(async (tx) => {
    const result = await work(tx);
    if (result) await auditAsOperator(tx, request, at.organizationId, changes, at.now);
    return result;
  });
}

/** A change of one object. */
export function changeOf(
  action: Change['action'],
  target: { type: Change['targetType']; id: string },
  details?: Record<string, unknown>,
): Change {
  return { action, targetType: target.type, targetId: target.id, ...(details && { details }) };
}

const LISTS = [
  ['allowedDomains', 'allowed_domains'],
  ['returnUrlDomains', 'return_url_domains'],
] as const;

/**
 * What a client update changed, in the app's terms: its name, its display name (null: removed),
 * its scopes, and one entry per origin added to or removed from either list.
 */
export function clientChanges(before: ApiClientRow, after: ApiClientRow): Change[] {
  const target = { targetType: 'client' as const, targetId: after.id };
  const changes: Change[] = [];
  if (before.name !== after.name) {
    changes.push({ ...target, action: 'client.renamed', details: { name: after.name } });
  }
  if (before.displayName !== after.displayName) {
    changes.push({
      ...target,
      action: 'client.display_name_changed',
      details: { display_name: after.displayName },
    });
  }
  if ([...before.scopes].sort().join() !== [...after.scopes].sort().join()) {
    changes.push({ ...target, action: 'client.scopes_changed', details: { scopes: after.scopes } });
  }
  for (const [column, list] of LISTS) {
    const [was, is] = [new Set(before[column]), new Set(after[column])];
    for (const origin of is) {
      if (!was.has(origin))
        changes.push({ ...target, action: 'client.domain_added', details: { list, origin } });
    }
    for (const origin of was) {
      if (!is.has(origin))
        changes.push({ ...target, action: 'client.domain_removed', details: { list, origin } });
    }
  }
  return changes;
}
