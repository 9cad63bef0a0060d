// GET /audit-log: the organization's audit log for owners and admins (access 'audit'), 50 entries
// a page, newest first; ?before=<id> pages back from an entry.
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { listAuditEvents } from '../../audit/index.ts';
import { sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderAuditLog } from '../views/audit-page.ts';
import { queryOf } from '../app-input.ts';

const AuditQuery = Type.Object({ before: Type.Optional(Type.String({ maxLength: 20 })) });

const AUDIT_PAGE_SIZE = 50;

/** A positive entry id from the query; anything else means the newest page. */
function beforeOf(value: string | undefined): number | undefined {
  if (!value || !/^[1-9][0-9]{0,14}$/.test(value)) return undefined;
  return Number(value);
}

export function showAuditLog(ctx: AppContext): Handler {
  return async (request, reply) => {
    const viewer = await viewerOf(ctx, request);
    const before = beforeOf(queryOf(request, AuditQuery).before);
    const { rows, hasMore } = await listAuditEvents(ctx.database.db, viewer.current.organizationId, {
      limit: AUDIT_PAGE_SIZE,
      before,
    });
    const olderBefore = hasMore && rows.length > 0 ? rows[rows.length - 1]!.id : null;
    return sendPage(
      reply,
      200,
      renderAuditLog({ viewer, entries: rows, olderBefore, paged: before !== undefined }),
    );
  };
}
