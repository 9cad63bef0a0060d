// Pieces several checkout pages share: their paths, the cancel form, and a form's errors as the
// page shows them (one message per field, and the summary's list).
import type { CheckoutSessionRow } from '../../checkout/index.ts';
import type { EventWithTickets } from '../../events/index.ts';
import { html, type FieldError, type Html, type Interpolation } from '../../platform/index.ts';
import { errorAnchor, fieldId, friendlyMessage } from '../checkout-form.ts';
import { langQuery, msg } from '../messages/current.ts';

/** A path of the checkout, keeping the language the buyer chose on the page. */
export function checkoutPath(sessionId: string, rest = ''): string {
  return `/checkout/${sessionId}${rest}${langQuery(rest.includes('?') ? '&' : '?')}`;
}

/** A session as the pages show it: with the display name its partner chose, if any. */
export type PageSession = CheckoutSessionRow & { partnerName: string | null };

function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}

/** Whom the buyer goes back to at `url`: the partner's display name, else the URL's host. */
export function partnerLabel(session: PageSession, url: string | null): string | null {
  if (!url) return null;
  const host = hostOf(url);
  return host ? (session.partnerName ?? host) : null;
}

export function cancelForm(session: PageSession): Html {
  const host = partnerLabel(session, session.cancelUrl);
  const m = msg().common;
  const label = session.uiMode === 'embedded' || !host ? m.cancel : m.cancelAndReturnTo(host);
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
      message:
        item && anchor !== 'items' ? msg().fields.participantField(Number(item[1]) + 1, message) : message,
    });
  }
  return { byField, summary };
}

/**
 * A catalog sentence with markup in it: "{time}" in the template becomes parts.time (escaped
 * unless it is Html), so the words stay in the catalog and each language orders them its own way.
 */
export function sentence(template: string, parts: Record<string, Interpolation>): Html {
  return html`${template.split(/(\{\w+\})/).map((piece) => {
    const name = /^\{(\w+)\}$/.exec(piece)?.[1];
    return name !== undefined && name in parts ? parts[name] : piece;
  })}`;
}
