// The operator's changes in each organization's audit log. The admin API, and the CLI that calls
// it, act as "operator" with the request's client IP; each entry is written in the change's
// transaction.
import type { FastifyRequest } from 'fastify';
import { OPERATOR_LABEL, recordAudit, type Actor, type AuditEntry } from '../audit/audit-log.ts';
import type { Executor } from '../platform/db.ts';

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
