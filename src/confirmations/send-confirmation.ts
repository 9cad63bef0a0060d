// Sending the confirmation of a paid order: the facts it tells (order, registrations, event,
// organizer), the job that mails it once after payment, and the outbox follower that makes that job
// from the order.paid event.
import type { AppContext } from '../context.ts';
import { findEvent } from '../events/index.ts';
import { MailError, type MailFailureCause, type MailMessage } from '../mail/index.ts';
import { findOrder, registrationsOf, type OrderRow } from '../orders/index.ts';
import { isErased, type JobHandlerEntry } from '../platform/index.ts';
import { issueTickets, ticketPagePath } from '../tickets/index.ts';
import type { OutboxFollower } from '../webhooks/index.ts';
import { confirmationMessage } from './confirmation-message.ts';
import { paidMailSent, recordOrderMail, type NewOrderMail } from './order-mails.ts';

export const CONFIRMATION_JOB = 'confirmation.send';

/**
 * The runner's backoff doubles from 2 s to its cap of an hour: 30 attempts keep trying for about
 * a day, long enough for an SMTP outage, short enough that the mail still means something.
 */
const CONFIRMATION_MAX_ATTEMPTS = 30;

/** The job for each order.paid event; one live job per order (dedupe key). */
export const confirmationFollower: OutboxFollower = (event, now) =>
  event.type === 'order.paid' && event.subjectId
    ? {
        kind: CONFIRMATION_JOB,
        payload: { organization_id: event.organizationId, order_id: event.subjectId },
        runAt: now,
        dedupeKey: `${CONFIRMATION_JOB}:${event.subjectId}`,
        maxAttempts: CONFIRMATION_MAX_ATTEMPTS,
      }
    : null;

/**
 * An order with the mail that confirms it. The runners' tickets are issued here (once: issuing
 * again finds them), so that a resend of an order paid before tickets existed carries them too.
 */
export async function loadConfirmation(
  ctx: AppContext,
  organizationId: string,
  orderId: string,
): Promise<{ order: OrderRow; message: MailMessage } | undefined> {
  const db = ctx.database.db;
  const order = await findOrder(db, organizationId, orderId);
  if (!order) return undefined;
  const [found, regs, issued] = await Promise.all([
    findEvent(db, order.eventId),
    registrationsOf(db, [order.id]),
    issueTickets(db, order.id, ctx.clock.now()),
  ]);
  if (!found) return undefined;
  const ticketOf = new Map(issued.filter((t) => t.status === 'valid').map((t) => [t.registrationId, t]));
  const { event, organization } = found;
  const message = confirmationMessage({
    locale: order.locale,
    buyerName: order.buyerName,
    buyerEmail: order.buyerEmail,
    orderCode: order.orderCode,
    eventName: event.name,
    startsAt: event.startsAt,
    timezone: event.timezone,
    venue: event.venue,
    registrations: (regs.get(order.id) ?? []).map((r) => {
      const ticket = ticketOf.get(r.id);
      return {
        participantName: r.participantName,
        ticketLabel: r.ticketLabel,
        ticket: ticket
          ? {
              code: ticket.code,
              bib: ticket.bib,
              url: new URL(ticketPagePath(ticket.token), ctx.config.siteUrl).toString(),
            }
          : null,
      };
    }),
    total: order.total,
    currency: order.currency,
    paymentMethod: order.paymentMethod,
    organizerName: event.organizerName || organization.name,
    supportEmail: event.supportEmail || organization.supportEmail,
  });
  return { order, message };
}

/** What a failed send records: the mailer's code and reason, and the SMTP reply code if any. */
export function mailFailureText(error: unknown): string {
  if (!(error instanceof MailError)) return 'unexpected: the mail could not be handed over';
  const smtp = (error.cause as MailFailureCause | undefined)?.responseCode;
  return `${error.code}: ${error.message}${smtp ? ` (SMTP ${smtp})` : ''}`.slice(0, 500);
}

/** Failures a retry cannot mend: no mail in this deployment, or a message the mailer refuses. */
function permanent(error: unknown): boolean {
  return error instanceof MailError && (error.code === 'not_configured' || error.code === 'invalid_message');
}

export type PaidMailResult = 'sent' | 'already_sent' | 'not_paid' | 'erased' | 'failed';

/**
 * Mails the confirmation of a paid order once: nothing when a sent one is on record (a job that
 * runs again), when the order is no longer paid (refunded before the mail went out), or when its
 * buyer's data was erased. Each try
 * is recorded; a failure a retry may mend throws, so that the job runner tries again later.
 */
export async function sendPaidConfirmation(
  ctx: AppContext,
  organizationId: string,
  orderId: string,
): Promise<PaidMailResult> {
  const db = ctx.database.db;
  if (await paidMailSent(db, orderId)) return 'already_sent';
  const loaded = await loadConfirmation(ctx, organizationId, orderId);
  if (!loaded || loaded.order.status !== 'paid') {
    ctx.log.info({ order_id: orderId }, 'confirmation mail not sent: the order is not paid');
    return 'not_paid';
  }
  const { order, message } = loaded;
  // The buyer's data was erased before the mail went out: there is no one to send it to.
  if (isErased(order.buyerEmail)) {
    ctx.log.info({ order_id: orderId }, 'confirmation mail not sent: the buyer data was erased');
    return 'erased';
  }
  return sendRecorded(
    ctx,
    { organizationId, orderId, kind: 'paid', to: order.buyerEmail },
    message,
    'confirmation mail',
  );
}

/**
 * Sends a job's mail about an order and records the try: 'sent', or 'failed' when no retry can
 * mend it (not configured, or a message the server refuses); any other failure throws, so that the
 * job runner tries again later.
 */
export async function sendRecorded(
  ctx: AppContext,
  mail: Omit<NewOrderMail, 'outcome' | 'createdAt'>,
  message: MailMessage,
  what: string,
): Promise<'sent' | 'failed'> {
  const db = ctx.database.db;
  const tried = ctx.clock.now();
  try {
    await ctx.mailer.send(message);
  } catch (error) {
    await recordOrderMail(db, {
      ...mail,
      outcome: 'failed',
      error: mailFailureText(error),
      createdAt: tried,
    });
    if (permanent(error)) return 'failed';
    throw new Error(`${what} not sent: ${mailFailureText(error)}`, { cause: error });
  }
  // A crash right here sends it again on the job's retry: at least once, as SMTP allows.
  await recordOrderMail(db, { ...mail, outcome: 'sent', createdAt: tried, sentAt: ctx.clock.now() });
  return 'sent';
}

export function confirmationJobHandlers(ctx: AppContext): Record<string, JobHandlerEntry> {
  return {
    // Outside a transaction: no connection or row lock is held while the SMTP server answers.
    [CONFIRMATION_JOB]: {
      outsideTransaction: true,
      run: async ({ job }) => {
        await sendPaidConfirmation(ctx, String(job.payload.organization_id), String(job.payload.order_id));
      },
    },
  };
}
