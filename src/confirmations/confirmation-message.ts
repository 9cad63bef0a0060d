// The words of the buyer's confirmation email: a plain-text part and a simple HTML part carrying the
// same facts, with no remote images, scripts or styles sheets (many mail clients block them, and
// a tracking pixel has no place here). Dates are the event's own, in its time zone, formatted as
// the checkout pages format them, in the language of the checkout the order was placed in
// (docs/decisions/mails-in-the-checkout-language.md).
import type { MailMessage } from '../mail/index.ts';
import { html, type Html } from '../platform/index.ts';
import { catalogOf, formatDateTime, formatMoney, methodName, zoneLabel } from '../site/index.ts';

export interface ConfirmationFacts {
  /** the order's checkout language (en, sw); English when null */
  locale: string | null;
  buyerName: string;
  buyerEmail: string;
  orderCode: string;
  eventName: string;
  startsAt: Date;
  timezone: string;
  /** '' when the event names none */
  venue: string;
  registrations: { participantName: string; ticketLabel: string; ticket?: MailedTicket | null }[];
  /** minor units; 0 for a free order */
  total: number;
  currency: string;
  /** the payment method key; null for a free order */
  paymentMethod: string | null;
  organizerName: string;
  /** '' when neither the event nor the organization gives one */
  supportEmail: string;
}

/** A runner's ticket as the mail gives it. */
interface MailedTicket {
  code: string;
  /** null until the start list gives one */
  bib: number | null;
  /** the ticket page's absolute address on the SITE host */
  url: string;
}

const SUBJECT_NAME_MAX = 150;

type Catalog = ReturnType<typeof catalogOf>;

function ticketLine(c: Catalog, ticket: MailedTicket): string {
  const m = c.messages.mail;
  return `${m.ticketCode}: ${ticket.code}${ticket.bib === null ? '' : `, ${m.bib} ${ticket.bib}`}`;
}

/** Text from the database on one line: a control character would make the mailer refuse the mail. */
export function oneLine(text: string, max = 500): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    out += code < 0x20 || code === 0x7f ? ' ' : char;
  }
  return out.trim().slice(0, max);
}

/** "Saturday 12 July 2026, 06:30 (Kampala time, EAT)" in the mail's language. */
export function eventWhen(c: Catalog, startsAt: Date, timezone: string): string {
  const zone = zoneLabel(timezone, startsAt, c.messages.common.zoneTime);
  return `${formatDateTime(startsAt, timezone, c.intl)} (${zone})`;
}

/** The facts as label and value pairs, in the order both parts show them. */
function factRows(c: Catalog, f: ConfirmationFacts): [string, string][] {
  const m = c.messages.mail.confirmation;
  const paid = f.total > 0 ? m.paidBy(formatMoney(f.total, f.currency), methodName(f.paymentMethod)) : m.free;
  return [
    [m.orderCode, f.orderCode],
    [m.event, oneLine(f.eventName)],
    [m.when, eventWhen(c, f.startsAt, f.timezone)],
    ...(f.venue.trim() ? [[m.where, oneLine(f.venue)] as [string, string]] : []),
    [m.paid, paid],
    [m.organizer, oneLine(f.organizerName)],
  ];
}

function textPart(c: Catalog, f: ConfirmationFacts): string {
  const mail = c.messages.mail;
  const m = mail.confirmation;
  const facts = factRows(c, f).map(([label, value]) => `${label}: ${value}`);
  const regs = f.registrations.flatMap((r) => [
    `- ${oneLine(r.participantName)}: ${oneLine(r.ticketLabel)}`,
    ...(r.ticket ? [`  ${ticketLine(c, r.ticket)}`, `  ${r.ticket.url}`] : []),
  ]);
  const hasTickets = f.registrations.some((r) => r.ticket);
  return [
    mail.hello(oneLine(f.buyerName)),
    '',
    m.confirmedText(oneLine(f.eventName)),
    '',
    ...facts,
    '',
    `${f.registrations.length === 1 ? m.registration : m.registrations}:`,
    ...regs,
    '',
    ...(hasTickets ? [m.ticketsNote, ''] : []),
    ...(f.supportEmail ? [`${mail.questions} ${oneLine(f.supportEmail)}.`, ''] : []),
    oneLine(f.organizerName),
  ].join('\n');
}

const CELL = 'padding:4px 12px 4px 0;vertical-align:top;text-align:left';

function registrationItem(c: Catalog, r: ConfirmationFacts['registrations'][number]): Html {
  const mail = c.messages.mail;
  const runner = oneLine(r.participantName);
  const what = html`<strong>${runner}</strong>: ${oneLine(r.ticketLabel)}`;
  if (!r.ticket) return html`<li>${what}</li>`;
  const { code, bib, url } = r.ticket;
  return html`<li style="margin-bottom:8px">
    ${what}<br />${mail.ticketCode}:
    <strong style="letter-spacing:0.08em">${code}</strong
    >${bib === null ? '' : html`, ${mail.bib} <strong>${String(bib)}</strong>`}<br /><a href="${url}"
      >${mail.confirmation.openTicket(runner)}</a
    >
  </li>`;
}

/** The HTML part's page around its content: no remote parts, one column, readable on a phone. */
export function mailHtml(c: Catalog, subject: string, body: Html): string {
  return html`<!doctype html>
    <html lang="${c.locale}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${subject}</title>
      </head>
      <body
        style="margin:0;padding:16px;font-family:Arial,Helvetica,sans-serif;line-height:1.5;color:#1a1a1a"
      >
        <div style="max-width:36em;margin:0 auto">${body}</div>
      </body>
    </html>`.value;
}

function htmlPart(c: Catalog, f: ConfirmationFacts, subject: string): string {
  const mail = c.messages.mail;
  const m = mail.confirmation;
  const rows: Html[] = factRows(c, f).map(
    ([label, value]) =>
      html`<tr>
        <th scope="row" style="${CELL};font-weight:normal;color:#555">${label}</th>
        <td style="${CELL}">
          ${label === m.orderCode ? html`<strong style="font-size:1.3em;letter-spacing:0.08em">${value}</strong>` : value}
        </td>
      </tr>`,
  );
  const support = oneLine(f.supportEmail);
  return mailHtml(
    c,
    subject,
    html`<h1 style="font-size:1.4em;margin:0 0 12px">${m.heading(oneLine(f.eventName))}</h1>
      <p>${mail.hello(oneLine(f.buyerName))}</p>
      <p>${m.confirmed}</p>
      <table role="presentation" style="border-collapse:collapse;margin:12px 0">
        ${rows}
      </table>
      <h2 style="font-size:1.1em;margin:16px 0 4px">
        ${f.registrations.length === 1 ? m.registration : m.registrations}
      </h2>
      <ul style="margin:0;padding-left:20px">
        ${f.registrations.map((r) => registrationItem(c, r))}
      </ul>
      ${f.registrations.some((r) => r.ticket) ? html`<p style="margin-top:8px">${m.ticketsNote}</p>` : ''}
      ${support ? html`<p style="margin-top:16px">${mail.questions} <a href="mailto:${support}">${support}</a>.</p>` : ''}
      <p style="margin-top:16px">${oneLine(f.organizerName)}</p>`,
  );
}

/** The confirmation mail of a paid order, to its buyer, in the language of its checkout. */
export function confirmationMessage(f: ConfirmationFacts): MailMessage {
  const c = catalogOf(f.locale);
  const subject = c.messages.mail.confirmation.subject(oneLine(f.eventName, SUBJECT_NAME_MAX), f.orderCode);
  return { to: f.buyerEmail, subject, text: textPart(c, f), html: htmlPart(c, f, subject) };
}
