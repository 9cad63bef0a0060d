// Forms that must be sent once (pay, retry): the button shows progress and a second submit is
// dropped, so a double tap on a slow connection sends one payment prompt. A submission that did
// not get through (send-form.ts) makes the form sendable again.
import { all } from './dom.ts';

const resets = new WeakMap<HTMLFormElement, () => void>();

/** `isFinal` tells the submissions that count (the form's other buttons move between steps). */
export function submitOnce(form: HTMLFormElement, isFinal: (submitter: HTMLElement | null) => boolean): void {
  let sent = false;
  let pressed: { button: HTMLButtonElement; label: string } | null = null;
  form.addEventListener('submit', (event) => {
    const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
    if (event.defaultPrevented || !isFinal(submitter)) return;
    if (sent) {
      event.preventDefault();
      return;
    }
    sent = true;
    if (submitter) {
      pressed = { button: submitter, label: submitter.textContent || '' };
      submitter.setAttribute('aria-disabled', 'true');
      if (submitter.dataset.busy) submitter.textContent = submitter.dataset.busy;
      // Disabled after this turn, so the button's own name=value is still part of the submission.
      setTimeout(() => (submitter.disabled = sent), 0);
    }
  });
  resets.set(form, () => {
    sent = false;
    if (!pressed) return;
    const { button, label } = pressed;
    button.disabled = false;
    button.removeAttribute('aria-disabled');
    if (button.dataset.busy) button.textContent = label;
  });
}

/** The submission did not get through: the form may be sent again, its button as it was. */
export function allowAgain(form: HTMLFormElement): void {
  resets.get(form)?.();
}

export function wireOnceForms(): void {
  all<HTMLFormElement>('form[data-once]').forEach((form) => submitOnce(form, () => true));
}
