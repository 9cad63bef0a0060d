// The buyer's mail when a refund succeeded: the amount and network, the runners whose places went
// back, and the reason, in the language of the order's checkout. It follows the order.refunded
// outbox event as the confirmation follows order.paid (one `refund.mail` job per refund, made by
// the webhook sender), runs outside a transaction, and is recorded in order_mails (once sent per
// refund, by a unique index), so the order's timeline shows it sent or why not.
import type { AppContext } from '../context.ts';
import { findEvent } from '../events/index.ts';
import type { MailMessage } from '../mail/index.ts';
import { findOrder, registrationsOf } from '../orders/index.ts';
import { refundsOfOrder } from '../payments/index.ts';
import { html, isErased, type JobHandlerEntry } from '../platform/index.ts';
import { catalogOf, formatMoney, methodName } from '../site/index.ts';
import type { OutboxFollower } from '../webhooks/index.ts';
import { mailHtml, oneLine } from './confirmation-message.ts';
import { refundMailSent } from './order-mails.ts';
import { sendRecorded } from './send-confirmation.ts';

const REFUND_MAIL_JOB = 'refund.mail';

/** As for the confirmation: about a day of the runner's backoff. */
const REFUND_MAIL_MAX_ATTEMPTS = 30;

interface RefundFacts {
  id: string;
  amount_minor: number;
  currency: string;
  method: string;
  reason: string | null;
  registration_ids: string[];
}

/** The job for each order.refunded event; one live job per refund (dedupe key). */
export const refundMailFollower: OutboxFollower = (event, now) => {
  const refund = event.data.refund as { id?: string } | undefined;
  if (event.type !== 'order.refunded' || !event.subjectId || !refund?.id) return null;
  return {
    kind: REFUND_MAIL_JOB,
    // ids only: the job reads the refund (its reason is personal data, erased with the order's)
    payload: { organization_id: event.organizationId, order_id: event.subjectId, refund_id: refund.id },
    runAt: now,
    dedupeKey: `${REFUND_MAIL_JOB}:${refund.id}`,
    maxAttempts: REFUND_MAIL_MAX_ATTEMPTS,
  };
};

interface RefundMailFacts {
  locale: string | null;
  to: string;
  buyerName: string;
  orderCode: string;
  eventName: string;
  refund: RefundFacts;
  runners: string[];
  /** the order is refunded in full now */
  whole: boolean;
  organizerName: string;
  supportEmail: string;
}

function refundMessage(f: RefundMailFacts): MailMessage {
  const c = catalogOf(f.locale);
  const mail = c.messages.mail;
  const m = mail.refund;
  const subject = m.subject(oneLine(f.eventName, 150), f.orderCode);
  const amount = m.amount(formatMoney(f.refund.amount_minor, f.refund.currency), methodName(f.refund.method));
  const runners = f.runners.map((r) => oneLine(r));
  const reason = f.refund.reason === null ? null : oneLine(f.refund.reason);
  const support = oneLine(f.supportEmail);
  const text = [
    mail.hello(oneLine(f.buyerName)),
    '',
    amount,
    ...(runners.length > 0 ? ['', m.runners, ...runners.map((r) => `- ${r}`)] : []),
    ...(reason ? ['', `${m.reason}: ${reason}`] : []),
    ...(f.whole ? ['', m.whole] : []),
    '',
    ...(support ? [`${mail.questions} ${support}.`, ''] : []),
    oneLine(f.organizerName),
  ].join('\n');
  const body = html`<h1 style="font-size:1.4em;margin:0 0 12px">${m.heading}</h1>
    <p>${mail.hello(oneLine(f.buyerName))}</p>
    <p>${amount}</p>
    ${
      runners.length > 0
        ? html`<p>${m.runners}</p>
            <ul>
              ${runners.map((r) => html`<li>${r}</li>`)}
            </ul>`
        : ''
    }
    ${reason ? html`<p>${m.reason}: ${reason}</p>` : ''} ${f.whole ? html`<p>${m.whole}</p>` : ''}
    ${support ? html`<p>${mail.questions} <a href="mailto:${support}">${support}</a>.</p>` : ''}
    <p>${oneLine(f.organizerName)}</p>`;
  return { to: f.to, subject, text, html: mailHtml(c, subject, body) };
}

type RefundMailResult = 'sent' | 'already_sent' | 'erased' | 'failed' | 'gone';

/**
 * Mails the buyer that a refund succeeded, once per refund; a failure a retry may mend throws, so
 * that the job runner tries again later.
 */
async function sendRefundMail(
  ctx: AppContext,
  options: { organizationId: string; orderId: string; refundId: string },
): Promise<RefundMailResult> {
  const db = ctx.database.db;
  const { organizationId, orderId, refundId } = options;
  if (await refundMailSent(db, refundId)) return 'already_sent';
  const order = await findOrder(db, organizationId, orderId);
  const found = order && (await findEvent(db, order.eventId));
  const row = order && (await refundsOfOrder(db, organizationId, orderId)).find((r) => r.id === refundId);
  if (!order || !found || !row) return 'gone';
  const refund: RefundFacts = {
    id: row.id,
    amount_minor: row.amount,
    currency: row.currency,
    method: row.method,
    reason: row.reason === null || isErased(row.reason) ? null : row.reason,
    registration_ids: row.registrationIds,
  };
  if (isErased(order.buyerEmail)) return 'erased';
  const regs = (await registrationsOf(db, [order.id])).get(order.id) ?? [];
  const names = new Map(regs.map((r) => [r.id, r.participantName]));
  const message = refundMessage({
    locale: order.locale,
    to: order.buyerEmail,
    buyerName: order.buyerName,
    orderCode: order.orderCode,
    eventName: found.event.name,
    refund,
    runners: refund.registration_ids.map((id) => names.get(id) ?? id),
    whole: order.status === 'refunded',
    organizerName: found.event.organizerName || found.organization.name,
    supportEmail: found.event.supportEmail || found.organization.supportEmail,
  });
  return sendRecorded(
    ctx,
    { organizationId, orderId, kind: 'refund', to: order.buyerEmail, refundId: refund.id },
    message,
    'refund mail',
  );
}

export function refundMailJobHandlers(ctx: AppContext): Record<string, JobHandlerEntry> {
  return {
    [REFUND_MAIL_JOB]: {
      outsideTransaction: true,
      run: async ({ job }) => {
        await sendRefundMail(ctx, {
          organizationId: String(job.payload.organization_id),
          orderId: String(job.payload.order_id),
          refundId: String(job.payload.refund_id),
        });
      },
    },
  };
}
