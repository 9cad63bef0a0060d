// The ticket page (SITE /tickets/<token>): the event, the runner, the ticket type, the bib once
// given, the ticket code and a QR code of the page's own address. The page stands alone (styles
// and its one script inline, allowed by their hashes, the QR as inline SVG), so that the copy the
// service worker keeps shows offline exactly as it did online.
import QRCode from 'qrcode';
import type { EventWithTickets } from '../../events/index.ts';
import { attr, html, raw, type Html } from '../../platform/index.ts';
import type { OrderTicket } from '../../tickets/index.ts';
import { CHECKOUT_CSS } from '../client/checkout.css.ts';
import { LOCALE_NAMES, type Locale } from '../messages/catalog.ts';
import { locale, msg } from '../messages/current.ts';
import { TICKET_PAGE_SCRIPT } from '../ticket-worker.ts';
import { eventHeader } from './layout.ts';

const TICKET_CSS = `
.ticket-card{border:2px solid #1a1a1a;border-radius:.75rem;padding:1rem;margin:0 0 1rem}
.ticket-card h2{margin:0 0 .75rem}
.runner{font-size:1.5rem;font-weight:700;line-height:1.2;margin:0 0 .75rem;overflow-wrap:anywhere}
.facts{display:grid;grid-template-columns:auto 1fr;gap:.35rem 1rem;align-items:baseline;margin:0 0 1rem}
.facts dt{color:#4a4a4a}
.facts dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.facts .big{font-size:1.35rem;letter-spacing:.08em;font-family:ui-monospace,Menlo,Consolas,monospace}
.qr{margin:0 auto;max-width:18rem;background:#fff}
.qr svg{display:block;width:100%;height:auto}
.print-row{margin:1rem 0 0}
@media print{
@page{margin:6mm}
html{font-size:11pt}
body{padding:0}
body,.page{background:#fff;min-height:0;box-shadow:none}
.page{max-width:none}
.no-print,footer{display:none!important}
.event{padding:0 0 .4rem}
h1{font-size:1.25rem}
main{padding:.4rem 0 0}
.ticket-card{break-inside:avoid;page-break-inside:avoid;margin:0 0 .4rem;padding:.6rem}
.ticket-card h2{margin:0 0 .3rem}
.runner{font-size:1.3rem;margin:0 0 .4rem}
.facts{margin:0 0 .5rem}
.qr{max-width:5cm}
.screen-only{display:none}
}
`;

/** The stylesheet inside the page: the checkout's own, and the ticket's. */
export const TICKET_PAGE_STYLES = `${CHECKOUT_CSS.trim()}\n${TICKET_CSS.trim()}`;

export interface TicketView {
  found: EventWithTickets;
  ticket: OrderTicket;
  /** the page's own absolute address, which the QR code carries */
  url: string;
}

/** The QR code of `text` as SVG markup (black on white, a quiet zone of four modules). */
async function qrSvg(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
  return svg.replace('<svg ', '<svg aria-hidden="true" focusable="false" ');
}

/** Four and four: a code read out over a crowd's noise. */
function spaced(code: string): string {
  return code.length === 8 ? `${code.slice(0, 4)} ${code.slice(4)}` : code;
}

function languageLinks(path: string): Html {
  const others = (Object.keys(LOCALE_NAMES) as Locale[]).filter((l) => l !== locale());
  return html`<p class="no-print">
    ${msg().common.language}:
    ${others.map((l) => html`<a href="${path}?lang=${l}" hreflang="${l}" lang="${l}">${LOCALE_NAMES[l]}</a>`)}
  </p>`;
}

function shell(options: { title: string; header?: Html; main: Html; footer?: Html }): string {
  return html`<!doctype html>
    <html lang="${locale()}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="robots" content="noindex" />
        <title>${options.title}</title>
        ${raw(`<style>${TICKET_PAGE_STYLES}</style>`)}
      </head>
      <body>
        <div class="page">
          ${options.header ?? ''}
          <main id="main">${options.main}</main>
          ${options.footer ?? ''}
        </div>
        ${raw(`<script>${TICKET_PAGE_SCRIPT}</script>`)}
      </body>
    </html>`.value;
}

export async function renderTicketPage(view: TicketView): Promise<string> {
  const { found, ticket } = view;
  const { event } = found;
  const m = msg().ticket;
  const organizer = event.organizerName || found.organization.name;
  const support = event.supportEmail || found.organization.supportEmail;
  const path = new URL(view.url).pathname;
  const header = eventHeader(found, { withCover: false });
  const main = html`<section
      class="ticket-card"
      aria-labelledby="h-ticket"
      data-ticket
      ${attr('data-ticket-code', ticket.code)}
    >
      <h2 id="h-ticket">${m.heading}</h2>
      <p class="runner"><span class="vh">${m.runner}: </span>${ticket.participantName}</p>
      <dl class="facts">
        <dt>${m.ticketType}</dt>
        <dd>${ticket.ticketLabel}</dd>
        <dt>${m.bib}</dt>
        <dd ${attr('class', ticket.bib === null ? null : 'big')} data-bib>
          ${ticket.bib === null ? m.bibLater : String(ticket.bib)}
        </dd>
        <dt>${m.code}</dt>
        <dd class="big" data-code>${spaced(ticket.code)}</dd>
      </dl>
      <div class="qr" role="img" aria-label="${m.qrLabel}" data-qr>${raw(await qrSvg(view.url))}</div>
    </section>
    <p class="screen-only">${m.showIt}</p>
    <p class="muted no-print">${m.offline}</p>
    <div class="print-row no-print">
      <button type="button" class="primary" data-print hidden>${m.print}</button>
    </div>`;
  const footer = html`<footer>
    <p>${m.organizedBy(organizer)}</p>
    ${support ? html`<p class="no-print">${msg().common.questions} <a href="mailto:${support}">${support}</a></p>` : ''}
    ${languageLinks(path)}
  </footer>`;
  return shell({ title: m.pageTitle(event.name), header, main, footer });
}

export function renderTicketNotFound(): string {
  const m = msg().ticket;
  return shell({
    title: m.notFoundTitle,
    main: html`<h1>${m.notFoundTitle}</h1>
      <p>${m.notFoundText}</p>`,
  });
}

/**
 * The page of a ticket whose place went to another runner (410): the event, and that the ticket
 * no longer works; never who has the place now.
 */
export function renderTicketTransferred(found: EventWithTickets, path: string): string {
  const m = msg().ticket;
  const header = eventHeader(found, { withCover: false });
  const footer = html`<footer>${languageLinks(path)}</footer>`;
  return shell({
    title: m.transferredTitle,
    header,
    main: html`<h1>${m.transferredTitle}</h1>
      <p>${m.transferredText}</p>`,
    footer,
  });
}
