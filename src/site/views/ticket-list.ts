// A runner's ticket as the confirmation page lists it: the code, the bib once given, and the link
// to the ticket page.
import { attr, html, type Html } from '../../platform/index.ts';
import type { OrderTicket } from '../../tickets/index.ts';
import { msg } from '../messages/current.ts';

export type ListedTicket = OrderTicket & { url: string };

/**
 * `newTab`: in an embedded checkout, where the ticket page (never framed) must open on its own.
 */
export function ticketFacts(ticket: ListedTicket, newTab: boolean): Html {
  const m = msg().ticket;
  return html`<span class="ticket-line" data-ticket-code="${ticket.code}">
    <span class="muted">${m.code}:</span> <strong class="ticket-code">${ticket.code}</strong>${
      ticket.bib === null
        ? ''
        : html`, <span class="muted">${m.bib}:</span> <strong>${String(ticket.bib)}</strong>`
    }
    <a
      href="${ticket.url}"
      ${attr('target', newTab ? '_blank' : null)}
      ${attr('rel', newTab ? 'noopener' : null)}
      >${m.openTicket}</a
    >
  </span>`;
}
