// GET /audit-log: the organization's audit log for owners and admins (access 'audit'), 50 entries
// a page, newest first; ?before=<id> pages back from an entry. The objects entries name by id
// (events, ticket types, API clients, webhook endpoints, members, orders) are looked up in their
// own modules, so that the page says which one in words; one deleted since keeps its id.
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { listAuditEvents, type AuditEventRow } from '../../audit/index.ts';
import { listApiClients } from '../../auth/index.ts';
import { listEventsOfOrganization, ticketTypesOf } from '../../events/index.ts';
import { listOrganizationMembers } from '../../members/index.ts';
import { orderCodesOf } from '../../orders/index.ts';
import { listWebhookEndpoints } from '../../webhooks/index.ts';
import { sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderAuditLog, type AuditLookups } from '../views/audit-page.ts';
import { queryOf } from '../app-input.ts';

const AuditQuery = Type.Object({ before: Type.Optional(Type.String({ maxLength: 20 })) });

const AUDIT_PAGE_SIZE = 50;

/** A positive entry id from the query; anything else means the newest page. */
function beforeOf(value: string | undefined): number | undefined {
  if (!value || !/^[1-9][0-9]{0,14}$/.test(value)) return undefined;
  return Number(value);
}

/** The names of what the entries point at, and the currency of each event and ticket type, by id. */
async function lookupsOf(
  ctx: AppContext,
  organizationId: string,
  entries: AuditEventRow[],
): Promise<AuditLookups> {
  const db = ctx.database.db;
  const orderIds = new Set<string>();
  for (const entry of entries) {
    if (entry.targetType === 'order') orderIds.add(entry.targetId);
    const orderId = (entry.details as Record<string, unknown> | null)?.order_id;
    if (typeof orderId === 'string') orderIds.add(orderId);
  }
  const [events, clients, endpoints, members, orderCodes] = await Promise.all([
    listEventsOfOrganization(db, organizationId),
    listApiClients(db, organizationId),
    listWebhookEndpoints(db, organizationId),
    listOrganizationMembers(db, organizationId),
    orderCodesOf(db, organizationId, [...orderIds]),
  ]);
  const types = await ticketTypesOf(
    db,
    events.map((e) => e.id),
  );
  const names = new Map<string, string>();
  const currencies = new Map<string, string>();
  for (const e of events) {
    names.set(e.id, e.name);
    currencies.set(e.id, e.currency);
  }
  for (const t of types) {
    names.set(t.id, `${t.name} (${names.get(t.eventId) ?? 'an event'})`);
    currencies.set(t.id, currencies.get(t.eventId) ?? '');
  }
  for (const c of clients) names.set(c.id, c.name);
  for (const w of endpoints) names.set(w.id, w.url);
  for (const m of members) names.set(m.memberId, m.name || m.email);
  for (const [id, code] of orderCodes) names.set(id, code);
  return { names, currencies };
}

export function showAuditLog(ctx: AppContext): Handler {
  return async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    const organizationId = viewer.current.organizationId;
    const before = beforeOf(queryOf(request, AuditQuery).before);
    const { rows, hasMore } = await listAuditEvents(ctx.database.db, organizationId, {
      limit: AUDIT_PAGE_SIZE,
      before,
    });
    const olderBefore = hasMore && rows.length > 0 ? rows[rows.length - 1]!.id : null;
    const lookups = await lookupsOf(ctx, organizationId, rows);
    return sendPage(
      reply,
      200,
      renderAuditLog({ viewer, entries: rows, lookups, olderBefore, paged: before !== undefined }),
    );
  };
}
