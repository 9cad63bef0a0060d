// The order page's part about the buyer's confirmation email: each mail sent or tried, as timeline
// entries, and the "Resend confirmation email" form for owners and admins on a paid order, with
// the outcome of the last resend.
import type { OrderMailRow } from '../../confirmations/index.ts';
import type { OrderRow } from '../../orders/index.ts';
import { html, isErased, type Html } from '../../platform/index.ts';
import { csrfInput } from './layout.ts';

export interface OrderMailsView {
  /** oldest first */
  mails: OrderMailRow[];
  /** the member may resend (an owner or an admin) */
  mayResend: boolean;
  /** the outcome of the resend just made (303 from the form), if any */
  resent: 'sent' | 'failed' | null;
}

/** One timeline line per mail: when it went (or was tried), to whom, and what came of it. */
export function orderMailEntries(mails: OrderMailRow[]): { at: Date; text: Html }[] {
  return mails.map((m) => {
    const by = m.requestedByLabel ? html` by ${m.requestedByLabel}` : '';
    const what = m.kind === 'resent' ? 'Confirmation email resent' : 'Confirmation email';
    const text =
      m.outcome === 'sent'
        ? html`${m.kind === 'resent' ? what : 'Confirmation email sent'} to ${m.to}${by}`
        : m.outcome === 'failed'
          ? html`${what} to ${m.to}${by} <strong>not sent:</strong>
              <span class="muted">${m.error ?? 'unknown error'}</span>`
          : html`${what} to ${m.to}${by}: handed to the mail server, no answer recorded`;
    return { at: m.sentAt ?? m.createdAt, text };
  });
}

/** The resend form (owners and admins, paid orders) and the last resend's outcome. */
export function orderMailsSection(order: OrderRow, view: OrderMailsView, csrfToken: string): Html {
  const notice =
    view.resent === 'sent'
      ? html`<p class="notice good" role="status">
          The confirmation email was sent again to ${order.buyerEmail}.
        </p>`
      : view.resent === 'failed'
        ? html`<p class="notice bad" role="alert">
            The confirmation email could not be sent. The reason is in the timeline below; try again in a
            minute.
          </p>`
        : '';
  // an erased buyer has no address to send to
  if (!view.mayResend || order.status !== 'paid' || isErased(order.buyerEmail)) return html`${notice}`;
  return html`<h2>Confirmation email</h2>
    ${notice}
    <form method="post" action="/orders/${order.id}/resend-confirmation" class="actions">
      ${csrfInput(csrfToken)}
      <button type="submit">Resend confirmation email</button>
    </form>
    <p class="hint">
      To ${order.buyerEmail}: the event, the order code and each registration. At most once a minute.
    </p>`;
}
