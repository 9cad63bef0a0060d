// What an embedded checkout tells the page that frames it (docs/contract.md#browser-messages):
// ready on every load, cancel and close from the buyer, success from the confirmation, and (an
// addition) service:state {prompt, typed} whenever a payment prompt goes out or ends, or the buyer
// first types into the form. Redirect pages send nothing. The one message the other way:
// checkout.js sends service:confirm-close when the buyer presses Esc on the host page with either
// of those true, and this page asks the buyer before it says close.
import { confirmClose, dropConfirm, promptOut, typedSomething, watchTyping } from './close-confirm.ts';
import { all } from './dom.ts';

export type Post = (message: Record<string, string | boolean>) => void;

/** The page that frames this one, when this is an embedded checkout in a frame; else null. */
function embedOrigin(body: HTMLElement): string | null {
  const origin = body.dataset.embedOrigin || '';
  return body.dataset.mode === 'embedded' && origin !== '' && window.parent !== window ? origin : null;
}

/** Messages go to the exact embed origin, never '*'. */
export function embedMessenger(body: HTMLElement): Post {
  const origin = embedOrigin(body);
  return (message) => {
    if (origin) window.parent.postMessage(message, origin);
  };
}

/**
 * ready now; cancel on the cancel form; close on the header's ×, the Close/Done buttons (all shown
 * only here) and Esc.
 */
export function wireEmbedControls(post: Post): void {
  post({ type: 'service:ready' });
  const origin = embedOrigin(document.body);
  if (!origin) return;
  all<HTMLFormElement>('form[data-cancel]').forEach((form) =>
    form.addEventListener('submit', () => post({ type: 'service:cancel' })),
  );
  // While a prompt is out, closing asks first: the payment goes on whether the modal shows or not.
  const close = () => confirmClose(() => post({ type: 'service:close' }));
  all<HTMLElement>('[data-close]').forEach((button) => {
    button.hidden = false;
    button.addEventListener('click', close);
  });
  // Keys pressed inside the frame never reach the host page: Esc is passed on as a dismissal
  // (unless the confirm is up, where Esc is its own Keep waiting).
  // Handled here, so the key's default action does not also cancel the confirm it just opened.
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || (event.target as Element).closest('dialog')) return;
    event.preventDefault();
    close();
  });
  addEventListener('message', (event) => {
    const data = event.data as { type?: unknown } | null;
    if (
      event.source === window.parent &&
      event.origin === origin &&
      data &&
      data.type === 'service:confirm-close'
    )
      close();
  });
}

/**
 * service:state {prompt, typed} now, on every change of the wait screen and on the buyer's first
 * change to the form. Wired last on the page, so on the confirmation service:success reaches the
 * host before "no prompt": a checkout closed mid-payment is still watched when its success arrives.
 */
export function reportPromptState(post: Post): void {
  let last = '';
  const report = () => {
    const state = { type: 'service:state', prompt: promptOut(), typed: typedSomething() };
    const now = JSON.stringify(state);
    if (now !== last) post(state);
    last = now;
    dropConfirm();
  };
  watchTyping(report);
  report();
  new MutationObserver(report).observe(document.body, {
    subtree: true,
    childList: true,
    attributeFilter: ['data-poll'],
  });
}
