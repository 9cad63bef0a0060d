// What every download of personal data shares: an audit entry with who took which file of what and
// how many rows, written when the file ends (or is cut short); times as the event's local clock
// shows them; and whether the member's role sees buyers' email and phone (members/roles.ts).
import type { FastifyRequest } from 'fastify';
import { lightFormat } from 'date-fns/lightFormat';
import { toZonedTime } from 'date-fns-tz/toZonedTime';
import type { AppContext } from '../context.ts';
import { recordAudit, type AuditAction } from '../audit/index.ts';
import { can } from '../members/index.ts';
import { memberOf } from './app-access.ts';
import { actorOf } from './replies.ts';

/** Whether the signed-in member's files and pages carry buyers' email and phone. */
export function showsContacts(request: FastifyRequest): boolean {
  return can(memberOf(request).role, 'buyer_contacts');
}

/** "2026-03-14 07:12": the instant on the clocks of `zone`. */
export function localStamp(instant: Date, zone: string): string {
  return lightFormat(toZonedTime(instant, zone), 'yyyy-MM-dd HH:mm');
}

export interface ExportRecord {
  action: AuditAction;
  target: { type: 'event' | 'organization'; id: string };
  file: string;
  /** whether the file holds buyers' email and phone */
  contacts: boolean;
}

/** Writes the export's audit entry; `complete` false when the download stopped part way. */
async function auditExport(
  ctx: AppContext,
  request: FastifyRequest,
  record: ExportRecord,
  rows: number,
  complete = true,
): Promise<void> {
  await recordAudit(
    ctx.database.db,
    {
      organizationId: memberOf(request).organizationId,
      actor: actorOf(request),
      action: record.action,
      targetType: record.target.type,
      targetId: record.target.id,
      details: {
        file: record.file,
        rows,
        buyer_contacts: record.contacts,
        ...(complete ? {} : { complete }),
      },
    },
    ctx.clock.now(),
  );
}

/**
 * `rows` passed through, counted; once they end, or the download is cut short (the stream calls
 * return()), the export's audit entry records how many left.
 */
export async function* audited<T>(
  ctx: AppContext,
  request: FastifyRequest,
  record: ExportRecord,
  rows: AsyncIterable<T>,
): AsyncGenerator<T> {
  let count = 0;
  let complete = false;
  try {
    for await (const row of rows) {
      count += 1;
      yield row;
    }
    complete = true;
  } finally {
    await auditExport(ctx, request, record, count, complete);
  }
}
