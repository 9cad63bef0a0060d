// The pages that end a checkout: the confirmation, and the clear dead ends (expired, registration
// closed, cancelled, not found, errors), each with the way back to the partner where there is one.
import type { EventWithTickets } from '../../events/index.ts';
import type { OrderOut } from '../../orders/index.ts';
import { formatMoney } from '../format.ts';
import { msg } from '../messages/current.ts';
import { html, type Html } from '../../platform/index.ts';
import { layout } from './layout.ts';
import { partnerLabel, sentence, type PageSession } from './page-parts.ts';
import { autofocus } from './status-pages.ts';
import { ticketFacts, type ListedTicket } from './ticket-list.ts';

export interface ConfirmationView {
  session: PageSession;
  found: EventWithTickets;
  order: OrderOut;
  /** right after paying (not when the buyer comes back to a complete session) */
  justPaid: boolean;
  /** the runners' valid tickets, each with its page's path */
  tickets: ListedTicket[];
  /** an embedded checkout's own tab, back from the card page: the buyer may close it */
  tab?: boolean;
}

export function renderConfirmationPage(view: ConfirmationView): string {
  const { session, found, order } = view;
  const m = msg().status;
  const embedded = session.uiMode === 'embedded';
  const successUrl =
    !embedded && session.successUrl && /^https?:\/\//i.test(session.successUrl) ? session.successUrl : null;
  const host = partnerLabel(session, successUrl);
  const organizer = found.event.organizerName || found.organization.name;
  const support = found.event.supportEmail || found.organization.supportEmail;
  const received = sentence(m.paymentReceived, {
    amount: html`<strong>${formatMoney(order.total, order.currency)}</strong>`,
  });
  const main = html`<section
    aria-labelledby="h-done"
    data-success
    data-session-id="${session.id}"
    data-order-id="${order.id}"
    data-order-code="${order.order_code}"
  >
    <h2 id="h-done" tabindex="-1" ${autofocus(session)}>${m.registered}</h2>
    <div role="status">
      <p class="notice good">${order.total > 0 ? received : m.registrationConfirmed}</p>
      ${view.tab ? html`<p class="notice" data-close-tab>${m.card.closeTab}</p>` : ''}
    </div>
    <p>${m.yourOrderCode}</p>
    <p class="code">${order.order_code}</p>
    <h3>${m.registrations}</h3>
    <ul class="regs">
      ${order.registrations.map((r) => {
        const ticket = view.tickets.find((t) => t.registrationId === r.id);
        return html`<li>
          <strong>${r.participant_name}</strong>: ${r.ticket_label}
          <span class="muted">(${m.registrationStatus[r.status] ?? r.status})</span>
          ${ticket ? ticketFacts(ticket, embedded) : ''}
        </li>`;
      })}
    </ul>
    ${view.tickets.length > 0 ? html`<p class="muted">${msg().ticket.ticketsIntro}</p>` : ''}
    <h3>${m.whatNext}</h3>
    <ul>
      <li>${m.keepCode}</li>
      <li>${order.buyer.email ? m.detailsByEmail(organizer) : m.detailsToYou(organizer)}</li>
      ${support ? html`<li>${sentence(m.writeTo, { email: html`<a href="mailto:${support}">${support}</a>` })}</li>` : ''}
    </ul>
    <div class="actions">
      ${successUrl && host ? html`<a class="button primary" href="${successUrl}">${m.continueTo(host)}</a>` : ''}
      ${embedded && !view.tab ? html`<button type="button" class="primary" data-close hidden>${m.done}</button>` : ''}
    </div>
  </section>`;
  // The card page's own tab keeps its note in the other language too.
  const page = view.tab ? '/pay?tab=1' : undefined;
  return layout({
    title: m.registeredTitle(found.event.name),
    main,
    session,
    found,
    compact: true,
    ...(page && { page }),
  }).value;
}

// ---------------------------------------------------------------------------------------------

/** An embedded page's Close, or a link back to the partner's on_cancel_url. */
function closeOrReturn(session: PageSession): Html {
  const m = msg().status;
  if (session.uiMode === 'embedded') {
    return html`<div class="actions">
      <button type="button" class="primary" data-close hidden>${m.close}</button>
    </div>`;
  }
  const host = partnerLabel(session, session.cancelUrl);
  return session.cancelUrl && host && /^https?:\/\//i.test(session.cancelUrl)
    ? html`<p><a class="button" href="${session.cancelUrl}">${m.returnTo(host)}</a></p>`
    : html``;
}

export function renderExpiredPage(session: PageSession, found: EventWithTickets | null): string {
  const m = msg().status;
  const main = html`<section aria-labelledby="h-expired">
    <h2 id="h-expired" tabindex="-1">${m.expiredTitle}</h2>
    <p>${m.expiredText}</p>
    ${closeOrReturn(session)}
  </section>`;
  return layout({ title: m.expiredTitle, main, session, found }).value;
}

export function renderClosedPage(session: PageSession, found: EventWithTickets): string {
  const m = msg().status;
  const main = html`<section aria-labelledby="h-closed">
    <h2 id="h-closed" tabindex="-1">${m.closedTitle}</h2>
    <p>${m.closedText(found.event.name)}</p>
    ${closeOrReturn(session)}
  </section>`;
  return layout({ title: `${m.closedTitle} – ${found.event.name}`, main, session, found }).value;
}

export function renderCancelledPage(
  session: PageSession,
  found: EventWithTickets | null,
  /** the buyer left with a prompt still on the phone: approving it would still pay */
  promptLeft = false,
): string {
  const m = msg().status;
  const main = html`<section aria-labelledby="h-cancelled">
    <h2 id="h-cancelled" tabindex="-1">${m.cancelledCheckout}</h2>
    <p>${promptLeft ? m.declineLeftPrompt : m.nothingWasCharged} ${m.youCanClose}</p>
    ${closeOrReturn(session)}
  </section>`;
  return layout({ title: m.cancelledCheckout, main, session, found }).value;
}

export function renderNotFoundPage(): string {
  const m = msg().status;
  const main = html`<h1>${m.notFoundTitle}</h1>
    <p>${m.notFoundText}</p>`;
  return layout({ title: m.notFoundTitle, main }).value;
}

export function renderErrorPage(options: { status: number; requestId: string; retryAfter?: string }): string {
  const { status } = options;
  const m = msg().status;
  const [heading, text] =
    status === 429
      ? [m.tooManyRequests, m.pleaseWait(options.retryAfter ?? m.aFew)]
      : status === 404
        ? [m.pageNotFound, m.checkTheLink]
        : status < 500
          ? [m.notHandled, m.goBack]
          : [m.ourSide, m.tryInAMoment];
  const main = html`<h1>${heading}</h1>
    <p>${text}</p>
    <p class="muted">${m.reference(options.requestId)}</p>`;
  return layout({ title: heading, main }).value;
}
