// The checkout form one step at a time. Without the script the server shows each step as its own
// page; here every step is already in the page, hidden but one. Continue checks the step and shows
// the next one that applies (payment only when there is something to pay); Back and the browser's
// own Back go to the step before, through the history; only Pay (or Confirm) submits, once. When the
// tickets were chosen for the buyer (data-tickets-known) the page starts on the details step, the
// count starts there, and the tickets step sits before it in the history for Back to reach. The main
// button looks not ready while required fields of its step are empty, and says how many.
import { all, one } from './dom.ts';
import { announceStep } from './announce.ts';
import { findFormParts, orderTotals, refreshPrices, type FormParts } from './form-parts.ts';
import { participantsBuilder, reveal, runnerName } from './participants.ts';
import { paymentStep } from './payment-step.ts';
import { renderSummary } from './summary.ts';
import { t } from './messages.ts';
import { checkStep, emptyRequired } from './step-checks.ts';
import { followFreeOrder } from './phone-field.ts';
import { submitOnce } from './submit-once.ts';

const ORDER = ['tickets', 'details', 'payment'];

const isPay = (submitter: HTMLElement | null) =>
  !!submitter && (submitter as HTMLButtonElement).value === 'pay';

/** Payment applies to an order that costs something, or to one not yet chosen. */
function applies(parts: FormParts, step: HTMLElement): boolean {
  if (step.dataset.step !== 'payment') return true;
  const t = orderTotals(parts);
  return t.total > 0 || t.count === 0;
}

/** The step to open first: the one holding the server's first error, else the one it showed. */
function firstStep(parts: FormParts): number {
  const { form, steps } = parts;
  const invalid = one<HTMLElement>('[aria-invalid="true"]', form);
  const invalidStep = invalid && (invalid.closest('[data-step]') as HTMLElement | null);
  if (invalidStep) return steps.indexOf(invalidStep);
  return Math.max(0, ORDER.indexOf(form.dataset.stage || ''));
}

export function enhanceCheckoutForm(form: HTMLFormElement): void {
  const parts = findFormParts(form);
  // In the order of the checkout, whatever order the server sent them in.
  parts.steps.sort((a, b) => ORDER.indexOf(a.dataset.step || '') - ORDER.indexOf(b.dataset.step || ''));
  const { steps } = parts;
  const summary = one<HTMLElement>('.error-summary', form);
  const from = one<HTMLInputElement>('[data-from]', form);
  const baseTitle = document.title;
  const rebuildParticipants = participantsBuilder(parts, one<HTMLElement>('[data-participants]', form));
  const paymentShown = paymentStep(parts, () => refresh());
  const known = form.hasAttribute('data-tickets-known');
  let current = 0;
  /** steps pushed onto the history by this page: Back pops them rather than adding more */
  let pushed = 0;

  function show(index: number, focus: boolean): void {
    current = index;
    const step = steps[index]!;
    // Tickets chosen for the buyer: the count starts at the details step (the tickets step has none).
    const counted = steps.filter((s) => applies(parts, s) && !(known && s.dataset.step === 'tickets'));
    steps.forEach((s, i) => (s.hidden = i !== index));
    document.body.classList.toggle('compact', index > 0);
    if (from) from.value = step.dataset.step || '';
    if (step.dataset.step === 'payment') paymentShown();
    refresh();
    announceStep(step, { position: counted.indexOf(step) + 1, count: counted.length, baseTitle, focus });
  }

  /** The shown step's main button: not ready (and how many fields are left) while any is empty. */
  function readiness(): void {
    const step = steps[current]!;
    const primary = one<HTMLButtonElement>('[data-primary]', step);
    const note = one<HTMLElement>('[data-to-fill]', step);
    if (!primary || !note) return;
    const n = emptyRequired(parts, step).length;
    primary.classList.toggle('not-ready', n > 0);
    note.hidden = n === 0;
    note.textContent = n === 0 ? '' : n === 1 ? t('toFillOne') : t('toFillMany', { n });
    if (n > 0) primary.setAttribute('aria-describedby', note.id);
    else primary.removeAttribute('aria-describedby');
  }

  /** Totals, the pay button, and the details step's button: Continue to pay, or Confirm when free. */
  function refresh(): void {
    refreshPrices(parts);
    const paying = steps.some((s) => s.dataset.step === 'payment' && applies(parts, s));
    const detailsButton = one<HTMLButtonElement>('[data-step="details"] [data-primary]', form);
    if (detailsButton && steps.some((s) => s.dataset.step === 'payment')) {
      detailsButton.value = paying ? 'payment' : 'pay';
      detailsButton.textContent = paying ? t('continue') : t('confirmRegistration');
      detailsButton.dataset.busy = t('confirming');
    }
    renderSummary(parts);
    followFreeOrder(parts.buyerPhone, orderTotals(parts));
    readiness();
  }

  function go(index: number): void {
    if (index > current) {
      history.pushState({ checkoutStep: index }, '');
      pushed += 1;
    } else if (pushed > 0) {
      // Back through the history, so the browser's Back and ours agree.
      history.back();
      return;
    } else {
      history.replaceState({ checkoutStep: index }, '');
    }
    show(index, true);
  }

  /** The next applicable step in `direction`, or -1. */
  function neighbour(direction: 1 | -1): number {
    for (let i = current + direction; i >= 0 && i < steps.length; i += direction) {
      if (applies(parts, steps[i]!)) return i;
    }
    return -1;
  }

  /** Checks the step shown; focuses its first problem. */
  function passes(): boolean {
    const bad = checkStep(parts, steps[current]!);
    if (bad) {
      reveal(bad);
      return false;
    }
    if (summary) summary.hidden = true;
    return true;
  }

  form.addEventListener('submit', (event) => {
    const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
    // The language switch at the top sends the form as it is: the page comes back at this step.
    if (submitter && submitter.value === 'language') return;
    const step = steps[current]!;
    // A submission not from a button of the step shown stands for the step's main button.
    if (!submitter || !step.contains(submitter)) {
      event.preventDefault();
      const primary = one<HTMLButtonElement>('[data-primary]', step);
      if (primary) primary.click();
      return;
    }
    const value = submitter.value;
    const back = value !== 'pay' && ORDER.indexOf(value) < ORDER.indexOf(step.dataset.step || '');
    if (back) {
      event.preventDefault();
      const previous = neighbour(-1);
      if (previous >= 0) go(previous);
      return;
    }
    if (!passes()) {
      event.preventDefault();
      return;
    }
    const next = neighbour(1);
    // Pay submits, unless the order gained something to pay and the payment step comes first.
    if (value === 'pay' && next < 0) return;
    event.preventDefault();
    if (next >= 0) go(next);
  });
  // Enter in a field presses the step's main button: the form's first button may be in a hidden
  // step, which browsers do not all press.
  form.addEventListener('keydown', (event) => {
    const target = event.target as HTMLElement;
    if (event.key !== 'Enter' || target.tagName !== 'INPUT') return;
    const type = (target as HTMLInputElement).type;
    if (type === 'checkbox' || type === 'radio') return;
    event.preventDefault();
    const primary = one<HTMLButtonElement>('[data-primary]', steps[current]!);
    if (primary) primary.click();
  });
  // After the listener above, so that it sees the steps' own submits already prevented.
  submitOnce(form, isPay);

  window.addEventListener('popstate', (event) => {
    const state = event.state as { checkoutStep?: number } | null;
    const index = state && typeof state.checkoutStep === 'number' ? state.checkoutStep : 0;
    pushed = Math.max(0, pushed - 1);
    if (index >= 0 && index < steps.length) show(index, true);
  });

  parts.selects.forEach((s) =>
    s.addEventListener('change', () => {
      rebuildParticipants();
      refresh();
    }),
  );
  if (parts.donation) parts.donation.addEventListener('input', refresh);
  form.addEventListener('input', readiness);
  form.addEventListener('change', readiness);
  // Unticking "I am the runner" reveals the runner's name field: brought into view, focused.
  const runner = one<HTMLInputElement>('input[data-runner]', form);
  if (runner)
    runner.addEventListener('change', () => {
      const name = runnerName(form);
      if (!runner.checked && name && steps[current]!.contains(name)) reveal(name);
    });

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

  const start = firstStep(parts);
  // A fresh load that starts past the tickets chosen for the buyer: the tickets step goes into the
  // history first, so that the browser's Back reaches it as ours does.
  if (
    known &&
    steps[start]!.dataset.step === 'details' &&
    steps[0]!.dataset.step === 'tickets' &&
    history.state === null
  ) {
    history.replaceState({ checkoutStep: 0 }, '');
    history.pushState({ checkoutStep: start }, '');
    pushed = 1;
  } else {
    history.replaceState({ checkoutStep: start }, '');
  }
  show(start, false);
  if (summary) summary.focus();
}
