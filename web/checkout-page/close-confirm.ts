// The confirm before an embedded checkout closes while a payment prompt is out: closing
// the modal does not stop the payment, so the buyer is told so and asked. It lives in the checkout
// page, not in checkout.js, so its copy sits with the page's and checkout.js stays small.
//
// A native modal <dialog>: focus moves to "Keep waiting", the page behind is inert, Esc means Keep
// waiting. Tab is kept between its two buttons: inside a frame it would otherwise leave for the
// host page.
import { append, one } from './dom.ts';
import { t } from './messages.ts';

/** The wait screen while the prompt is out (payment-wait.ts polls only then). */
export function promptOut(): boolean {
  return !!one('[data-poll="1"]');
}

let dialog: HTMLDialogElement | null = null;

function build(close: () => void): HTMLDialogElement {
  const d = append(document.body, 'dialog');
  d.setAttribute('aria-labelledby', 'close-ask-title');
  d.setAttribute('aria-describedby', 'close-ask-text');
  d.className = 'close-ask';
  append(d, 'h2', t('closeAskTitle')).id = 'close-ask-title';
  append(d, 'p', t('closeAskText')).id = 'close-ask-text';
  const actions = append(d, 'div');
  actions.className = 'actions';
  const keep = append(actions, 'button', t('keepWaiting'));
  const leave = append(actions, 'button', t('closeAnyway'));
  keep.type = leave.type = 'button';
  keep.className = 'primary';
  keep.autofocus = true;
  keep.addEventListener('click', () => d.close());
  leave.addEventListener('click', () => {
    d.close();
    close();
  });
  d.addEventListener('keydown', (event) => {
    if (event.key !== 'Tab') return;
    const edge = event.shiftKey ? keep : leave;
    if (document.activeElement === edge) {
      event.preventDefault();
      (edge === keep ? leave : keep).focus();
    }
  });
  return d;
}

/** Runs `close` at once, or after the buyer confirms while a prompt is out. */
export function confirmClose(close: () => void): void {
  if (!promptOut()) return close();
  dialog ??= build(close);
  if (!dialog.open) dialog.showModal();
}

/** The prompt ended while the confirm was up: nothing left to ask. */
export function dropConfirm(): void {
  if (dialog && dialog.open && !promptOut()) dialog.close();
}
