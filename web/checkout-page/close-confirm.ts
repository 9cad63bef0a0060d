// The confirm before an embedded checkout closes with something to lose: while a payment prompt
// is out (closing the modal does not stop the payment, so the buyer is told so), or once the buyer
// has typed into the form (closing loses it). It lives in the checkout page, not in checkout.js,
// so its copy sits with the page's and checkout.js stays small.
//
// A native modal <dialog>: focus moves to the button that keeps the checkout, the page behind is
// inert, Esc means keep. Tab is kept between its two buttons: inside a frame it would otherwise
// leave for the host page.
import { append, one } from './dom.ts';
import { t } from './messages.ts';

/** The wait screen while the prompt is out (payment-wait.ts polls only then). */
export function promptOut(): boolean {
  return !!one('[data-poll="1"]');
}

let typed = false;

/**
 * The buyer changed something in the checkout form: an input or change event in it (values the
 * page came with, prefilled or kept, fire none), or the form is back from the server with what the
 * buyer sent (with errors, or in the other language: data-typed). Nothing on the pages after the
 * form (paid or waiting) counts.
 */
export function typedSomething(): boolean {
  return typed || !!one('form[data-checkout] .error-summary, form[data-checkout][data-typed]');
}

/** Notes the buyer's changes to the checkout form; `changed` runs on each. */
export function watchTyping(changed: () => void): void {
  const form = one<HTMLFormElement>('form[data-checkout]');
  if (!form) return;
  const mark = () => {
    typed = true;
    changed();
  };
  form.addEventListener('input', mark);
  form.addEventListener('change', mark);
}

interface Confirm {
  dialog: HTMLDialogElement;
  /** open for a payment prompt (not for typed words) */
  forPrompt: boolean;
}

let confirm: Confirm | null = null;

function build(close: () => void): Confirm {
  const d = append(document.body, 'dialog');
  d.setAttribute('aria-labelledby', 'close-ask-title');
  d.setAttribute('aria-describedby', 'close-ask-text');
  d.className = 'close-ask';
  append(d, 'h2').id = 'close-ask-title';
  append(d, 'p').id = 'close-ask-text';
  const actions = append(d, 'div');
  actions.className = 'actions';
  const keep = append(actions, 'button');
  const leave = append(actions, 'button', t('closeAnyway'));
  keep.type = leave.type = 'button';
  keep.className = 'primary';
  keep.dataset.keep = '';
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
  return { dialog: d, forPrompt: false };
}

/** Runs `close` at once, or after the buyer confirms while a prompt is out or with words typed. */
export function confirmClose(close: () => void): void {
  const forPrompt = promptOut();
  if (!forPrompt && !typedSomething()) return close();
  confirm ??= build(close);
  const d = confirm.dialog;
  if (d.open) return;
  confirm.forPrompt = forPrompt;
  one('#close-ask-title', d)!.textContent = t(forPrompt ? 'closeAskTitle' : 'closeTypedTitle');
  // A card payment is finished on the card page, not approved on a phone.
  const byCard = !!one('[data-wait][data-card="1"]');
  one('#close-ask-text', d)!.textContent = t(
    forPrompt ? (byCard ? 'closeCardText' : 'closeAskText') : 'closeTypedText',
  );
  const keep = one<HTMLElement>('[data-keep]', d)!;
  keep.textContent = t(forPrompt ? 'keepWaiting' : 'keepGoing');
  d.showModal();
  // By script: autofocus is not honoured in a frame of another site.
  keep.focus();
}

/** The prompt ended while its confirm was up: nothing left to ask. */
export function dropConfirm(): void {
  if (confirm && confirm.forPrompt && confirm.dialog.open && !promptOut()) confirm.dialog.close();
}
