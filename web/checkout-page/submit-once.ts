// Forms that must be sent once (pay, retry): the button shows progress and a second submit is
// dropped, so a double tap on a slow connection sends one payment prompt.
import { all } from './dom.ts';

/** `isFinal` tells the submissions that count (the form's other buttons move between steps). */
export function submitOnce(form: HTMLFormElement, isFinal: (submitter: HTMLElement | null) => boolean): void {
  let sent = false;
  form.addEventListener('submit', (event) => {
    const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
    if (event.defaultPrevented || !isFinal(submitter)) return;
    if (sent) {
      event.preventDefault();
      return;
    }
    sent = true;
    if (submitter) {
      submitter.setAttribute('aria-disabled', 'true');
      if (submitter.dataset.busy) submitter.textContent = submitter.dataset.busy;
      // Disabled after this turn, so the button's own name=value is still part of the submission.
      setTimeout(() => (submitter.disabled = true), 0);
    }
  });
}

export function wireOnceForms(): void {
  all<HTMLFormElement>('form[data-once]').forEach((form) => submitOnce(form, () => true));
}
