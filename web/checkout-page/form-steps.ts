// The checkout form one step at a time. Without the script the server shows it as three pages;
// here every step is already in the page, hidden but one. Continue checks the step and shows the
// next one that applies (payment only when there is something to pay); Back goes to the one
// before; only the review step's Pay button submits, once.
import { all, one } from './dom.ts';
import { announceStep } from './announce.ts';
import { findFormParts, orderTotals, refreshPrices, type FormParts } from './form-parts.ts';
import { participantsBuilder } from './participants.ts';
import { paymentStep } from './payment-step.ts';
import { renderReview } from './review.ts';
import { checkStep } from './step-checks.ts';
import { submitOnce } from './submit-once.ts';

const isPay = (submitter: HTMLElement | null) => !!submitter && submitter.hasAttribute('data-pay');

/** Payment applies to an order that costs something, or to one not yet chosen. */
function applies(parts: FormParts, step: HTMLElement): boolean {
  if (step.dataset.step !== 'payment') return true;
  const t = orderTotals(parts);
  return t.total > 0 || t.count === 0;
}

/** The step to open first: the one holding the server's first error, else where the stage begins. */
function firstStep(parts: FormParts): number {
  const { form, steps } = parts;
  const invalid = one<HTMLElement>('[aria-invalid="true"]', form);
  const invalidStep = invalid && (invalid.closest('[data-step]') as HTMLElement | null);
  if (invalidStep) return steps.indexOf(invalidStep);
  if (form.dataset.stage !== 'details') return 0;
  return Math.max(0, steps.indexOf(one<HTMLElement>('[data-step="participants"]', form)!));
}

export function enhanceCheckoutForm(form: HTMLFormElement): void {
  const parts = findFormParts(form);
  const { steps } = parts;
  const summary = one<HTMLElement>('.error-summary', form);
  const baseTitle = document.title;
  const rebuildParticipants = participantsBuilder(parts, one<HTMLElement>('[data-participants]', form));
  const paymentShown = paymentStep(parts);
  let current = 0;

  all<HTMLElement>('[data-js]', form).forEach((e) => (e.hidden = false));
  all<HTMLElement>('[data-nojs]', form).forEach((e) => (e.hidden = true));

  function show(index: number, focus: boolean): void {
    current = index;
    const step = steps[index]!;
    const active = steps.filter((s) => applies(parts, s));
    steps.forEach((s, i) => (s.hidden = i !== index));
    if (step.dataset.step === 'review') renderReview(parts);
    if (step.dataset.step === 'payment') paymentShown();
    announceStep(step, { position: active.indexOf(step) + 1, count: active.length, baseTitle, focus });
  }

  function move(direction: 1 | -1): void {
    for (let i = current + direction; i >= 0 && i < steps.length; i += direction) {
      if (applies(parts, steps[i]!)) return show(i, true);
    }
  }

  function next(): void {
    const step = steps[current]!;
    const bad = checkStep(parts, step);
    if (bad) return bad.focus();
    if (summary) summary.hidden = true;
    if (step.dataset.step === 'tickets') rebuildParticipants();
    move(1);
  }

  form.addEventListener('submit', (event) => {
    const step = steps[current]!.dataset.step;
    if (step === 'review' && isPay((event as SubmitEvent).submitter)) return;
    event.preventDefault();
    if (step !== 'review') next();
  });
  // After the listener above, so that it sees the steps' own submits already prevented.
  submitOnce(form, isPay);

  all<HTMLElement>('[data-back]', form).forEach((b) => b.addEventListener('click', () => move(-1)));
  parts.selects.forEach((s) => s.addEventListener('change', () => refreshPrices(parts)));
  if (parts.donation) parts.donation.addEventListener('input', () => refreshPrices(parts));

  // Links of the server's error summary open the step that holds the field.
  all<HTMLAnchorElement>('.error-summary a', form).forEach((a) =>
    a.addEventListener('click', (event) => {
      const target = document.getElementById((a.getAttribute('href') || '').slice(1));
      const step = target && (target.closest('[data-step]') as HTMLElement | null);
      if (!target || !step) return;
      event.preventDefault();
      show(steps.indexOf(step), false);
      target.focus();
    }),
  );

  refreshPrices(parts);
  show(firstStep(parts), false);
  if (summary) summary.focus();
}
