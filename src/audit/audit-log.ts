// The audit log's writer and reader. A change and its entry are written in one transaction by the
// caller, so no change goes unrecorded and no entry tells of a change that did not happen.
import { and, desc, eq, lt } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { auditEvents } from './audit.schema.ts';

export type AuditEventRow = typeof auditEvents.$inferSelect;

/** Every action the log records, with the words the audit page shows for it. */
export const AUDIT_ACTIONS = {
  'member.invited': 'invited a member',
  'member.invitation_revoked': 'revoked an invitation',
  'member.joined': 'joined',
  'member.role_changed': "changed a member's role",
  'member.removed': 'removed a member',
  'client.created': 'created an API client',
  'client.renamed': 'renamed an API client',
  'client.display_name_changed': "changed an API client's display name",
  'client.scopes_changed': "changed an API client's scopes",
  'client.secret_rotated': "rotated an API client's secret",
  'client.publishable_key_regenerated': "regenerated an API client's publishable key",
  'client.domain_added': 'added a domain to an API client',
  'client.domain_removed': 'removed a domain from an API client',
  'client.revoked': 'revoked an API client',
  'webhook_endpoint.created': 'created a webhook endpoint',
  'webhook_endpoint.updated': 'changed a webhook endpoint',
  'webhook_endpoint.enabled': 'enabled a webhook endpoint',
  'webhook_endpoint.disabled': 'disabled a webhook endpoint',
  'webhook_endpoint.secret_rotated': "rotated a webhook endpoint's secret",
  'webhook_endpoint.deleted': 'deleted a webhook endpoint',
  'event.created': 'created an event',
  'event.updated': 'changed an event',
  'event.status_changed': "changed an event's status",
  'ticket_type.created': 'added a ticket type',
  'ticket_type.updated': 'changed a ticket type',
  'event.bib_ranges_changed': "changed an event's bib number ranges",
  'event.bibs_assigned': 'assigned bib numbers',
  'check_in.undone': "undid a runner's check-in",
  'check_in.conflict': 'checked in a runner already checked in by another volunteer',
  'order.refund_requested': 'asked for an order to be refunded',
  'order.confirmation_resent': "resent an order's confirmation email",
  'payment.refund_requested': 'asked for a payment that bought nothing to be refunded',
  'refund.succeeded': 'confirmed a refund',
  'refund.failed': 'reported a refund failed',
  'buyer.erased': "erased a buyer's personal data",
  'registration.corrected': "corrected a runner's details",
  'registration.transferred': 'transferred a place to another runner',
  'event.runners_exported': "downloaded an event's runners",
  'event.start_list_exported': "downloaded an event's start list",
  'orders.exported': 'downloaded orders',
  'event.money_exported': "downloaded an event's money report or payments for reconciliation",
  'organization.updated': "changed the organization's settings",
} as const;
export type AuditAction = keyof typeof AUDIT_ACTIONS;

type AuditTarget =
  | 'member'
  | 'invitation'
  | 'client'
  | 'webhook_endpoint'
  | 'event'
  | 'ticket_type'
  | 'order'
  /** a runner's place in an order: the log names the fields changed, not the runner */
  | 'registration'
  | 'refund'
  /** an erasure of a buyer's data, named by its erasure id: the log never holds the buyer's data */
  | 'buyer'
  /** the whole organization, such as a download of orders across its events */
  | 'organization';

/** Who acted: a signed-in member, or the operator through the admin API or the CLI. */
export interface Actor {
  memberId: string | null;
  /** the member's email, or "operator" */
  label: string;
  /** the client IP of the request; null from the CLI */
  ip: string | null;
}

export const OPERATOR_LABEL = 'operator';

/**
 * Who a business action (a module's actions/) acts for, and where: a member within their
 * organization, an API client within its own, or the operator (admin API, CLI) in any.
 * Another organization's object is not found.
 */
export interface ActingOn {
  actor: Actor;
  /** the member's or client's organization; absent for the operator */
  organizationId?: string | undefined;
}

/** `row` when the actor may act on it: the operator on any, others on their organization's only. */
export function withinReach<T extends { organizationId: string }>(
  on: ActingOn,
  row: T | undefined,
): T | undefined {
  return row && (on.organizationId === undefined || row.organizationId === on.organizationId)
    ? row
    : undefined;
}

export interface AuditEntry {
  organizationId: string;
  actor: Actor;
  action: AuditAction;
  targetType: AuditTarget;
  targetId: string;
  /** what changed, shown as is: never a secret */
  details?: Record<string, unknown>;
}

export async function recordAudit(db: Executor, entry: AuditEntry, now: Date): Promise<void> {
  await db.insert(auditEvents).values({
    organizationId: entry.organizationId,
    actorMemberId: entry.actor.memberId,
    actorLabel: entry.actor.label.slice(0, 320),
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    details: entry.details ?? {},
    ip: entry.actor.ip,
    createdAt: now,
  });
}

/** Newest first; `before` is the id of the last entry of the previous page. */
export async function listAuditEvents(
  db: Executor,
  organizationId: string,
  page: { limit: number; before?: number | undefined },
): Promise<{ rows: AuditEventRow[]; hasMore: boolean }> {
  const rows = await db
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.organizationId, organizationId),
        page.before === undefined ? undefined : lt(auditEvents.id, page.before),
      ),
    )
    .orderBy(desc(auditEvents.id))
    .limit(page.limit + 1);
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}
