// The two mails of a transferred place, sent once the transfer committed (as resends are: no
// transaction waits on the mail server): to the buyer, and to a runner the place had been
// transferred to before, that the place went to another runner and its old ticket no longer works
// (naming no one); to the new runner, their ticket's code and link. Each is recorded in
// order_mails, so the order's timeline shows it sent or why not. In the language of the order's
// checkout.
import type { AppContext } from '../context.ts';
import { findEvent } from '../events/index.ts';
import { MailError, type MailMessage } from '../mail/index.ts';
import { html, isErased } from '../platform/index.ts';
import { catalogOf } from '../site/index.ts';
import { ticketPagePath, type TransferredPlace } from '../tickets/index.ts';
import type { Actor } from '../audit/index.ts';
import { eventWhen, mailHtml, oneLine } from './confirmation-message.ts';
import { recordOrderMail, settleOrderMail, type OrderMailRow } from './order-mails.ts';
import { mailFailureText } from './send-confirmation.ts';

type Catalog = ReturnType<typeof catalogOf>;

interface TransferFacts {
  eventName: string;
  startsAt: Date;
  timezone: string;
  orderCode: string;
  ticketLabel: string;
  organizerName: string;
  supportEmail: string;
}

function signOff(c: Catalog, f: TransferFacts): string[] {
  const support = oneLine(f.supportEmail);
  return [...(support ? [`${c.messages.mail.questions} ${support}.`, ''] : []), oneLine(f.organizerName)];
}

/** To the buyer (or an earlier runner): the place went to someone else; its old ticket is void. */
function awayMessage(c: Catalog, f: TransferFacts, to: string, voidedCode: string | null): MailMessage {
  const m = c.messages.mail.transfer;
  const event = oneLine(f.eventName, 150);
  const subject = m.awaySubject(event, f.orderCode);
  const lines = [
    m.away(oneLine(f.eventName), oneLine(f.ticketLabel)),
    ...(voidedCode ? [m.awayOldTicket(voidedCode)] : []),
  ];
  const text = [...lines, '', ...signOff(c, f)].join('\n');
  const support = oneLine(f.supportEmail);
  const body = html`<h1 style="font-size:1.4em;margin:0 0 12px">${m.awayHeading}</h1>
    ${lines.map((l) => html`<p>${l}</p>`)}
    ${support ? html`<p>${c.messages.mail.questions} <a href="mailto:${support}">${support}</a>.</p>` : ''}
    <p>${oneLine(f.organizerName)}</p>`;
  return { to, subject, text, html: mailHtml(c, subject, body) };
}

/** To the new runner: their ticket's code and link. */
function toMessage(
  c: Catalog,
  f: TransferFacts,
  runner: { name: string; email: string },
  ticket: TransferredPlace['ticket'] & { url: string },
): MailMessage {
  const mail = c.messages.mail;
  const m = mail.transfer;
  const event = oneLine(f.eventName);
  const subject = m.toSubject(oneLine(f.eventName, 150));
  const when = eventWhen(c, f.startsAt, f.timezone);
  const code = `${mail.ticketCode}: ${ticket.code}${ticket.bib === null ? '' : `, ${mail.bib} ${ticket.bib}`}`;
  const text = [
    mail.hello(oneLine(runner.name)),
    '',
    m.to(event, oneLine(f.ticketLabel)),
    `${m.when}: ${when}`,
    '',
    code,
    ticket.url,
    '',
    m.toTicket,
    '',
    ...signOff(c, f),
  ].join('\n');
  const support = oneLine(f.supportEmail);
  const body = html`<h1 style="font-size:1.4em;margin:0 0 12px">${m.toHeading(event)}</h1>
    <p>${mail.hello(oneLine(runner.name))}</p>
    <p>${m.to(event, oneLine(f.ticketLabel))}</p>
    <p>${m.when}: ${when}</p>
    <p>
      ${mail.ticketCode}:
      <strong style="font-size:1.3em;letter-spacing:0.08em">${ticket.code}</strong
      >${ticket.bib === null ? '' : html`, ${mail.bib} <strong>${String(ticket.bib)}</strong>`}
    </p>
    <p><a href="${ticket.url}">${m.openTicket}</a></p>
    <p>${m.toTicket}</p>
    ${support ? html`<p>${mail.questions} <a href="mailto:${support}">${support}</a>.</p>` : ''}
    <p>${oneLine(f.organizerName)}</p>`;
  return { to: runner.email, subject, text, html: mailHtml(c, subject, body) };
}

/**
 * Sends the transfer's mails and records each; a mail that fails is recorded as failed (the
 * organizer sees why on the order's timeline) and does not undo the transfer.
 */
export async function mailTransfer(
  ctx: AppContext,
  transferred: TransferredPlace,
  actor: Actor,
): Promise<OrderMailRow[]> {
  const db = ctx.database.db;
  const { order, before, after } = transferred;
  const found = await findEvent(db, order.eventId);
  if (!found) return [];
  const { event, organization } = found;
  const c = catalogOf(order.locale);
  const facts: TransferFacts = {
    eventName: event.name,
    startsAt: event.startsAt,
    timezone: event.timezone,
    orderCode: order.orderCode,
    ticketLabel: after.ticketLabel,
    organizerName: event.organizerName || organization.name,
    supportEmail: event.supportEmail || organization.supportEmail,
  };
  const url = new URL(ticketPagePath(transferred.ticket.token), ctx.config.siteUrl).toString();
  const away = [order.buyerEmail, before.runnerEmail]
    .filter((to): to is string => !!to && !isErased(to))
    .filter((to, i, all) => all.findIndex((t) => t.toLowerCase() === to.toLowerCase()) === i)
    .filter((to) => to.toLowerCase() !== after.runnerEmail?.toLowerCase());
  const messages: { kind: 'transfer_away' | 'transfer_to'; message: MailMessage }[] = [
    ...away.map((to) => ({
      kind: 'transfer_away' as const,
      message: awayMessage(c, facts, to, transferred.voidedCode),
    })),
    {
      kind: 'transfer_to',
      message: toMessage(
        c,
        facts,
        { name: after.participantName, email: after.runnerEmail! },
        { ...transferred.ticket, url },
      ),
    },
  ];
  const rows: OrderMailRow[] = [];
  for (const { kind, message } of messages) {
    const claimed = await recordOrderMail(db, {
      organizationId: order.organizationId,
      orderId: order.id,
      kind,
      to: message.to,
      outcome: 'sending',
      requestedBy: { memberId: actor.memberId, label: actor.label },
      createdAt: ctx.clock.now(),
    });
    try {
      await ctx.mailer.send(message);
    } catch (error) {
      if (!(error instanceof MailError))
        ctx.log.warn({ err: error, order_id: order.id }, 'transfer mail failed');
      rows.push(await settleOrderMail(db, claimed!.id, { outcome: 'failed', error: mailFailureText(error) }));
      continue;
    }
    rows.push(await settleOrderMail(db, claimed!.id, { outcome: 'sent', sentAt: ctx.clock.now() }));
  }
  return rows;
}
