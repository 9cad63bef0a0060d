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

/** What each kind of mail is called on the timeline. */
const MAIL_NAMES: Record<string, { sent: string; tried: string }> = {
  paid: { sent: 'Confirmation email sent', tried: 'Confirmation email' },
  resent: { sent: 'Confirmation email resent', tried: 'Confirmation email resent' },
  transfer_away: { sent: 'Transfer notice sent', tried: 'Transfer notice' },
  transfer_to: { sent: "New runner's ticket email sent", tried: "New runner's ticket email" },
  refund: { sent: 'Refund email sent', tried: 'Refund email' },
};

/**
 * One timeline line per mail: when it went (or was tried), to whom, and what came of it. A new
 * runner's own address (a transfer's ticket) only for members who may see contacts, as on their
 * runner's card; the buyer's address is shown to all, as it always was on the timeline.
 */
export function orderMailEntries(mails: OrderMailRow[], showAddress: boolean): { at: Date; text: Html }[] {
  return mails.map((m) => {
    const by = m.requestedByLabel ? html` by ${m.requestedByLabel}` : '';
    const name = MAIL_NAMES[m.kind] ?? MAIL_NAMES.paid!;
    const to = showAddress || m.kind !== 'transfer_to' ? m.to : 'the new runner';
    const text =
      m.outcome === 'sent'
        ? html`${name.sent} to ${to}${by}`
        : m.outcome === 'failed'
          ? html`${name.tried} to ${to}${by} <strong>not sent:</strong>
              <span class="muted">${m.error ?? 'unknown error'}</span>`
          : html`${name.tried} to ${to}${by}: handed to the mail server, no answer recorded`;
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
