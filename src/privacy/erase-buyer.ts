// The erasure of one buyer's personal data, found by their email: every order they placed (in one
// organization from the organizer app, in all from the admin API and the CLI) loses the buyer's
// and its participants' data wherever it is kept (redact-orders.ts), checkout sessions prefilled
// with the address are cleared, and the operator's erasure also empties the development mailbox
// of it. Each organization whose data changed records one buyer.erased audit entry with the
// counts and an erasure id, never the address. Running it again finds nothing and changes nothing.
import { recordAudit, type Actor } from '../audit/index.ts';
import { clearPrefillOfBuyer } from '../checkout/index.ts';
import type { AppContext } from '../context.ts';
import { deleteKeptMailTo } from '../mail/index.ts';
import { findOrdersOfBuyer, isEmail, type OrderRef } from '../orders/index.ts';
import { newId, validationError } from '../platform/index.ts';
import { addErasures, countsOut, noErasures, redactOrderSet, type ErasureCounts } from './redact-orders.ts';

/** Orders erased per transaction: a buyer has few, a club secretary buying for a field many. */
const ERASE_BATCH = 200;

/** The address as erasure compares it: trimmed, without regard to case. */
function normalizeBuyerEmail(text: string): string {
  return text.trim().toLowerCase();
}

/** Control characters (a NUL would fail the query) are in no address. */
function hasControl(text: string): boolean {
  return [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
}

/** Why `text` cannot name a buyer to erase, or null when it can. */
export function buyerEmailProblem(text: string): string | null {
  const email = normalizeBuyerEmail(text);
  return isEmail(email) && !hasControl(email) ? null : 'must be an email address, such as ann@example.org';
}

export interface EraseBuyerOptions {
  email: string;
  /** erase within this organization only (the organizer app); absent: every organization */
  organizationId?: string | undefined;
  actor: Actor;
  /** the order the erasure was asked from (the organizer app), named in the audit entry */
  orderCode?: string | undefined;
}

export interface BuyerErasure {
  /** era_...: names the erasure in the audit log of each organization it touched */
  erasureId: string;
  /** organizations whose data changed */
  organizations: number;
  counts: ErasureCounts;
}

function byOrganization(refs: OrderRef[]): Map<string, OrderRef[]> {
  const groups = new Map<string, OrderRef[]>();
  for (const ref of refs) groups.set(ref.organizationId, [...(groups.get(ref.organizationId) ?? []), ref]);
  return groups;
}

const changedAnything = (counts: ErasureCounts) => Object.values(counts).some((n) => n > 0);

/**
 * Erases the buyer's data. A malformed address is validation_failed and changes nothing; an
 * address with no data answers zero counts. Batches of orders commit one by one (an interrupted
 * erasure is finished by running it again); the audit entries commit with the last writes.
 */
export async function eraseBuyer(ctx: AppContext, options: EraseBuyerOptions): Promise<BuyerErasure> {
  const problem = buyerEmailProblem(options.email);
  if (problem) throw validationError([{ field: 'email', message: problem }]);
  const email = normalizeBuyerEmail(options.email);
  const { organizationId } = options;
  const perOrganization = new Map<string, ErasureCounts>();
  const countFor = (id: string) => {
    const counts = perOrganization.get(id) ?? noErasures();
    perOrganization.set(id, counts);
    return counts;
  };
  for (;;) {
    const refs = await findOrdersOfBuyer(ctx.database.db, { email, organizationId, limit: ERASE_BATCH });
    if (refs.length === 0) break;
    const erased = await ctx.database.transaction(async (tx) => {
      let orders = 0;
      for (const [org, group] of byOrganization(refs)) {
        const counts = await redactOrderSet(tx, group, { storedResponses: true });
        addErasures(countFor(org), counts);
        orders += counts.orders;
      }
      return orders;
    });
    // Erased orders no longer match; none changed means another erasure got there first.
    if (erased === 0 || refs.length < ERASE_BATCH) break;
  }
  const erasureId = newId('era');
  const now = ctx.clock.now();
  const total = await ctx.database.transaction(async (tx) => {
    for (const session of await clearPrefillOfBuyer(tx, { email, organizationId })) {
      countFor(session.organizationId).checkoutSessions++;
    }
    // The development mailbox belongs to no organization: the operator's erasure empties it.
    const developmentMails = organizationId === undefined ? await deleteKeptMailTo(tx, email) : 0;
    if (organizationId !== undefined) countFor(organizationId);
    for (const [org, counts] of perOrganization) {
      if (org !== organizationId && !changedAnything(counts)) continue;
      await recordAudit(
        tx,
        {
          organizationId: org,
          actor: options.actor,
          action: 'buyer.erased',
          targetType: 'buyer',
          targetId: erasureId,
          details: { ...(options.orderCode && { order_code: options.orderCode }), ...countsOut(counts) },
        },
        now,
      );
    }
    const sum = noErasures();
    for (const counts of perOrganization.values()) addErasures(sum, counts);
    return addErasures(sum, { developmentMails });
  });
  const organizations = [...perOrganization.values()].filter(changedAnything).length;
  ctx.log.info({ erasure_id: erasureId, organizations, ...countsOut(total) }, 'personal data erased');
  return { erasureId, organizations, counts: total };
}
