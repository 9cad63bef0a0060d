// The page of a checkout request the service could not answer just now (503 service_unavailable:
// the database out of reach, or the request shed under load). Never a dead end: it says what the
// request did on the buyer's phone, offers the same request again ("Try again": a link for a
// page, the posted fields again for a form), a way back into the checkout, and the request id.
// The page script copies the parts marked data-say into the page the buyer is on (send-form.ts).
import type { FormBody } from '../checkout-form.ts';
import { msg } from '../messages/current.ts';
import type { PromptState } from '../prompt-state.ts';
import { attr, html, raw, type Html } from '../../platform/index.ts';
import { INLINE_STYLES, layout } from './layout.ts';

/** What the request was, as the buyer did it. */
export type UnavailableStep =
  /** a page opened (the form, the cancel step, an asset) */
  | 'open'
  /** the wait screen (its refresh and "Check the payment status") */
  | 'wait'
  /** the form posted to move between steps (without the script): nothing is held or sent */
  | 'form'
  /** Pay (or Confirm) on the form, or the wait screen's retry form */
  | 'pay'
  /** "Resend prompt": a prompt may already be out */
  | 'resend'
  /** "Use another number or network": closes the prompt out, sends none */
  | 'switch'
  | 'cancel';

export interface UnavailableView {
  step: UnavailableStep;
  prompt: PromptState;
  requestId: string;
  /** seconds, from Retry-After: the wait screen reloads itself after them */
  retryAfter?: string;
  /** the request to make again: a page's path, or a form's action with the fields it posted */
  again: { method: 'get'; path: string } | { method: 'post'; path: string; fields: FormBody | null } | null;
  /** back into the checkout: the form, or the payment's wait screen */
  back?: { path: string; to: 'checkout' | 'payment' } | null;
}

/**
 * Run in the page, so that it works when the page script's request was shed too: framed (by
 * checkout.js), it says service:ready to the framing page, whose origin only the browser knows
 * here (the session cannot be read), and leaves that origin on <html> for the page script. The
 * message carries nothing.
 */
export const FRAMED_READY =
  '(function(){var w=window,d=document,a=location.ancestorOrigins,o=a&&a.length?a[0]:"";' +
  'if(!o&&d.referrer)try{o=new URL(d.referrer).origin}catch(e){}' +
  'if(w.parent!==w&&/^https?:/.test(o)){d.documentElement.setAttribute("data-embed-origin",o);' +
  'w.parent.postMessage({type:"service:ready"},o)}})()';

/** What the page runs and styles inline, for its Content-Security-Policy. */
export const UNAVAILABLE_INLINE = { scripts: [FRAMED_READY], styles: [INLINE_STYLES] };

/** What the request did on the buyer's phone, in the request's language. */
function promptText(step: UnavailableStep, prompt: PromptState): string {
  const m = msg().status.unavailablePrompt;
  if (prompt === 'sent') return m.sent;
  if (prompt === 'unknown') return m.unknown;
  if (step === 'wait') return m.waiting;
  if (step === 'pay') return m.none;
  if (step === 'resend' || step === 'switch') return m.noneNew;
  return m.nothing;
}

/** Whether sending the request again may start a payment prompt (the script words a lost answer by it). */
function mayPrompt(step: UnavailableStep): boolean {
  return step === 'pay' || step === 'resend';
}

function againAction(view: UnavailableView): Html {
  const { again } = view;
  const m = msg().status;
  if (!again) return html``;
  if (again.method === 'get') return html`<a class="button primary" href="${again.path}">${m.tryAgain}</a>`;
  if (!again.fields) return html``;
  // The same submission again: without the script a POST cannot be repeated any other way, and a
  // prompt already out for the order makes a repeat send nothing (payments' one-open-attempt rule).
  return html`<form method="post" action="${again.path}" data-once>
    ${Object.entries(again.fields).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
    <button type="submit" class="primary" ${attr('data-prompt', mayPrompt(view.step))}>${m.tryAgain}</button>
  </form>`;
}

function backLink(view: UnavailableView): Html {
  const m = msg().status;
  if (!view.back) return html``;
  return html`<a href="${view.back.path}"
    >${view.back.to === 'payment' ? m.checkStatus : m.backToCheckout}</a
  >`;
}

export function renderUnavailablePage(view: UnavailableView): string {
  const m = msg().status;
  const posted = view.again?.method === 'post' && view.again.fields !== null;
  const bad = view.prompt === 'unknown' ? ' bad' : '';
  const main = html`<section
    aria-labelledby="h-unavailable"
    class="unavailable"
    data-unavailable
    data-step="${view.step}"
    data-prompt-state="${view.prompt}"
  >
    <h1 id="h-unavailable" tabindex="-1" autofocus data-say>${m.unavailableTitle}</h1>
    <p class="notice${bad}" data-say>${promptText(view.step, view.prompt)}</p>
    <p data-say>${posted ? `${m.answersKept} ` : ''}${m.tryInAMoment}</p>
    <div class="actions">${againAction(view)} ${backLink(view)}</div>
    <p class="muted" data-reference>${m.reference(view.requestId)}</p>
  </section>`;
  // The wait screen keeps checking by itself, with or without the script, as its own page does.
  const refresh =
    view.step === 'wait' && view.retryAfter && /^\d+$/.test(view.retryAfter)
      ? html`<meta http-equiv="refresh" content="${view.retryAfter}" />`
      : '';
  // A plain string: the CSP allows exactly this text, and no formatter may touch it.
  const head = html`${raw(`<script>${FRAMED_READY}</script>`)}${refresh}`;
  // The form's script: the one a buyer's browser most likely has cached while the service sheds.
  return layout({ title: m.unavailableTitle, main, head, inlineStyles: true, form: true }).value;
}
