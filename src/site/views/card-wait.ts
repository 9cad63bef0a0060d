// The wait screen's words for a card payment: the buyer pays on the provider's card page and may
// confirm with the bank, so nothing is said of a phone, a prompt or a PIN, and there is no prompt
// to resend. A top-level checkout links to the card page; inside checkout.js's frame (which the
// card page refuses) the link opens a new tab and the frame keeps watching the order.
import type { PaymentAttemptRow } from '../../payments/index.ts';
import { html, type Html } from '../../platform/index.ts';
import { formatMoney } from '../format.ts';
import { msg } from '../messages/current.ts';
import { checkoutPath, sentence, type PageSession } from './page-parts.ts';

/** The failure's words for a card payment, where they differ from mobile money's. */
export function cardOutcome(kind: string): { title: string; text: string } | null {
  const words = msg().status.card.outcomes;
  return Object.hasOwn(words, kind) ? words[kind]! : null;
}

/** The way to the card page: in the same tab, or (in checkout.js's frame) a new one. */
function cardPageLink(newTab: boolean, url: string): Html {
  const m = msg().status.card;
  if (!newTab) {
    return html`<p><a class="button primary" href="${url}" data-card-page>${m.goToPage}</a></p>`;
  }
  return html`<p>
      <a class="button primary" href="${url}" target="_blank" rel="noopener" data-card-page>${m.newTab}</a>
    </p>
    <p class="muted">${m.newTabText}</p>`;
}

/**
 * The waiting body of an open card attempt; `hold` is the hold's line; `tab`: the embedded
 * checkout's own tab, back from the card page, where the card page opens in the same tab.
 */
export function cardWaitingBody(
  session: PageSession,
  attempt: PaymentAttemptRow,
  hold: Html,
  tab = false,
): Html {
  const m = msg().status;
  return html`<div class="spinner" aria-hidden="true"></div>
    <div role="status">
      <p class="notice">
        ${sentence(m.card.waitText, {
          amount: html`<strong>${formatMoney(attempt.amount, attempt.currency)}</strong>`,
        })}
      </p>
    </div>
    ${attempt.redirectUrl ? cardPageLink(session.uiMode === 'embedded' && !tab, attempt.redirectUrl) : ''}
    <div class="actions">
      <form method="post" action="${checkoutPath(session.id, '/switch')}" data-once>
        <button type="submit">${m.card.payAnotherWay}</button>
      </form>
    </div>
    ${hold}
    <noscript
      ><p><a href="${checkoutPath(session.id, '/pay')}">${m.checkStatus}</a></p></noscript
    >`;
}

/** How long after its start a card payment's wait screen still goes on to the card page by itself. */
const ONWARD_MS = 60_000;

/**
 * A top-level checkout's way to the card page right after Pay: a refresh to it from the wait
 * screen. Not a redirect of the form's POST: the page's CSP (form-action) holds for a form's
 * redirects too, and the card page is another origin. Only just after the start, so that Back
 * from the card page stays on the wait screen.
 */
export function cardPageRefresh(session: PageSession, attempt: PaymentAttemptRow, now: Date): Html | null {
  const url = attempt.redirectUrl;
  const fresh = now.getTime() - attempt.createdAt.getTime() < ONWARD_MS;
  if (session.uiMode === 'embedded' || !url || !fresh) return null;
  return html`<meta http-equiv="refresh" content="0; url=${url}" />`;
}

/** The cancel question's words while the card page may be open. */
export function cardCancelWarning(attempt: PaymentAttemptRow, event: string): Html {
  const m = msg().status.card;
  return html`<p>
      ${sentence(m.cancelWarning, {
        amount: html`<strong>${formatMoney(attempt.amount, attempt.currency)}</strong>`,
        event,
      })}
    </p>
    <p>${m.cancelHowTo}</p>`;
}
