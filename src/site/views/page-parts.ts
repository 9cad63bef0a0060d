// Pieces several checkout pages share: their paths, the cancel form, and a form's errors as the
// page shows them (one message per field, and the summary's list).
import type { CheckoutSessionRow } from '../../checkout/sessions.ts';
import type { EventWithTickets } from '../../events/events.ts';
import type { FieldError } from '../../platform/errors.ts';
import { errorAnchor, fieldId, friendlyMessage } from '../checkout-form.ts';
import { html, type Html } from '../../platform/html.ts';

export function checkoutPath(sessionId: string, rest = ''): string {
  return `/checkout/${sessionId}${rest}`;
}

export function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

export function cancelForm(session: CheckoutSessionRow): Html {
  const host = session.cancelUrl ? hostOf(session.cancelUrl) : null;
  const label = session.uiMode === 'embedded' || !host ? 'Cancel' : `Cancel and return to ${host}`;
  return html`<form
    method="post"
    action="${checkoutPath(session.id, '/cancel')}"
    class="cancel-form"
    data-cancel
  >
    <button type="submit" class="link">${label}</button>
  </form>`;
}

/** Friendly message per anchor field (first wins) and the summary's list, in order. */
export function collectErrors(errors: FieldError[], found: EventWithTickets) {
  const byField = new Map<string, string>();
  const summary: { href: string; message: string }[] = [];
  for (const e of errors) {
    const anchor = errorAnchor(e.field);
    const message = friendlyMessage(e.field, e.message, found);
    if (byField.has(anchor)) continue;
    byField.set(anchor, message);
    const item = /^items\[(\d+)\]\./.exec(e.field);
    summary.push({
      href: fieldId(anchor),
      message: item && anchor !== 'items' ? `Participant ${Number(item[1]) + 1}: ${message}` : message,
    });
  }
  return { byField, summary };
}
