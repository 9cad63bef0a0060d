// The words of the buyer's confirmation email: a plain-text part and a simple HTML part carrying the
// same facts, with no remote images, scripts or styles sheets (many mail clients block them, and
// a tracking pixel has no place here). Dates are the event's own, in its time zone, formatted as
// the checkout pages format them.
import type { MailMessage } from '../mail/index.ts';
import { html, type Html } from '../platform/index.ts';
import { formatDateTime, formatMoney, methodName, zoneLabel } from '../site/index.ts';

export interface ConfirmationFacts {
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

const TICKETS_NOTE = "Each runner's ticket is at its link: open it on race day, or print it.";

function ticketLine(ticket: MailedTicket): string {
  return `Ticket code: ${ticket.code}${ticket.bib === null ? '' : `, bib ${ticket.bib}`}`;
}

/** Text from the database on one line: a control character would make the mailer refuse the mail. */
function oneLine(text: string, max = 500): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    out += code < 0x20 || code === 0x7f ? ' ' : char;
  }
  return out.trim().slice(0, max);
}

/** The facts as label and value pairs, in the order both parts show them. */
function factRows(f: ConfirmationFacts): [string, string][] {
  const when = `${formatDateTime(f.startsAt, f.timezone)} (${zoneLabel(f.timezone, f.startsAt)})`;
  const paid =
    f.total > 0
      ? `${formatMoney(f.total, f.currency)} by ${methodName(f.paymentMethod)}`
      : 'Nothing: the registration is free';
  return [
    ['Order code', f.orderCode],
    ['Event', oneLine(f.eventName)],
    ['When', when],
    ...(f.venue.trim() ? [['Where', oneLine(f.venue)] as [string, string]] : []),
    ['Paid', paid],
    ['Organizer', oneLine(f.organizerName)],
  ];
}

function textPart(f: ConfirmationFacts): string {
  const facts = factRows(f).map(([label, value]) => `${label}: ${value}`);
  const regs = f.registrations.flatMap((r) => [
    `- ${oneLine(r.participantName)}: ${oneLine(r.ticketLabel)}`,
    ...(r.ticket ? [`  ${ticketLine(r.ticket)}`, `  ${r.ticket.url}`] : []),
  ]);
  const hasTickets = f.registrations.some((r) => r.ticket);
  return [
    `Hello ${oneLine(f.buyerName)},`,
    '',
    `Your registration for ${oneLine(f.eventName)} is confirmed. Keep your order code: the organizer may ask for it.`,
    '',
    ...facts,
    '',
    f.registrations.length === 1 ? 'Registration:' : 'Registrations:',
    ...regs,
    '',
    ...(hasTickets ? [TICKETS_NOTE, ''] : []),
    ...(f.supportEmail ? [`Questions? Write to ${oneLine(f.supportEmail)}.`, ''] : []),
    oneLine(f.organizerName),
  ].join('\n');
}

const CELL = 'padding:4px 12px 4px 0;vertical-align:top;text-align:left';

function registrationItem(r: ConfirmationFacts['registrations'][number]): Html {
  const runner = oneLine(r.participantName);
  const what = html`<strong>${runner}</strong>: ${oneLine(r.ticketLabel)}`;
  if (!r.ticket) return html`<li>${what}</li>`;
  const { code, bib, url } = r.ticket;
  return html`<li style="margin-bottom:8px">
    ${what}<br />Ticket code:
    <strong style="letter-spacing:0.08em">${code}</strong
    >${bib === null ? '' : html`, bib <strong>${String(bib)}</strong>`}<br /><a href="${url}"
      >Open ${runner}'s ticket</a
    >
  </li>`;
}

function htmlPart(f: ConfirmationFacts, subject: string): string {
  const rows: Html[] = factRows(f).map(
    ([label, value]) =>
      html`<tr>
        <th scope="row" style="${CELL};font-weight:normal;color:#555">${label}</th>
        <td style="${CELL}">
          ${label === 'Order code' ? html`<strong style="font-size:1.3em;letter-spacing:0.08em">${value}</strong>` : value}
        </td>
      </tr>`,
  );
  const support = oneLine(f.supportEmail);
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${subject}</title>
      </head>
      <body
        style="margin:0;padding:16px;font-family:Arial,Helvetica,sans-serif;line-height:1.5;color:#1a1a1a"
      >
        <div style="max-width:36em;margin:0 auto">
          <h1 style="font-size:1.4em;margin:0 0 12px">You are registered for ${oneLine(f.eventName)}</h1>
          <p>Hello ${oneLine(f.buyerName)},</p>
          <p>Your registration is confirmed. Keep your order code: the organizer may ask for it.</p>
          <table role="presentation" style="border-collapse:collapse;margin:12px 0">
            ${rows}
          </table>
          <h2 style="font-size:1.1em;margin:16px 0 4px">
            ${f.registrations.length === 1 ? 'Registration' : 'Registrations'}
          </h2>
          <ul style="margin:0;padding-left:20px">
            ${f.registrations.map((r) => registrationItem(r))}
          </ul>
          ${f.registrations.some((r) => r.ticket) ? html`<p style="margin-top:8px">${TICKETS_NOTE}</p>` : ''}
          ${support ? html`<p style="margin-top:16px">Questions? Write to <a href="mailto:${support}">${support}</a>.</p>` : ''}
          <p style="margin-top:16px">${oneLine(f.organizerName)}</p>
        </div>
      </body>
    </html>`.value;
}

/** The confirmation mail of a paid order, to its buyer. */
export function confirmationMessage(f: ConfirmationFacts): MailMessage {
  const subject = `Registration confirmed: ${oneLine(f.eventName, SUBJECT_NAME_MAX)} (order ${f.orderCode})`;
  return { to: f.buyerEmail, subject, text: textPart(f), html: htmlPart(f, subject) };
}
