// The checks a step passes before the next one shows. The server repeats all of them and more;
// these only spare the buyer a round trip. Each marks its fields and returns the bad controls.
import { isEmail, isPhoneNumber, normalizePhone } from '../../src/orders/contact.ts';
import { all, one } from './dom.ts';
import { setError, type Control } from './field-errors.ts';
import { orderTotals, type FormParts } from './form-parts.ts';
import { t } from './messages.ts';
import { chosenMethodOf, onPage, pageMethods } from './page-methods.ts';
import { paymentPhoneProblem, phoneWords } from './phone-field.ts';

type StepCheck = (parts: FormParts, step: HTMLElement) => HTMLElement[];

/** Sets the control's error and says whether it had one. */
function mark(control: Control, message: string | null): boolean {
  setError(control, message);
  return message !== null;
}

/** Whole years from the date of birth to the day, both YYYY-MM-DD. */
function ageOn(dob: string, on: string): number {
  const b = dob.split('-').map(Number);
  const o = on.split('-').map(Number);
  return o[0]! - b[0]! - (o[1]! < b[1]! || (o[1] === b[1] && o[2]! < b[2]!) ? 1 : 0);
}

function checkTickets(parts: FormParts): HTMLElement[] {
  const first = parts.selects[0];
  if (!first) return [];
  const n = orderTotals(parts).count;
  const max = Number(parts.form.dataset.maxTickets || 10);
  const message = n === 0 ? t('chooseAtLeastOne') : n > max ? t('chooseAtMost', { max }) : null;
  return mark(first, message) ? [first] : [];
}

function answerProblem(control: Control): string | null {
  const value = control.value.trim();
  if (control.dataset.check === 'required' && value === '') {
    return t('isRequired', { label: control.dataset.label || '' });
  }
  // a phone question (the emergency contact's number), required or not (data-check="phone")
  if (control.type === 'tel' && value !== '')
    return isPhoneNumber(value, pageMethods().country) ? null : t('enterPhoneNumber');
  if (control.dataset.check === 'required') return null;
  if (control.dataset.check !== 'dob') return null;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return t('enterDateOfBirth');
  if (ageOn(value, control.dataset.raceDay || value) < Number(control.dataset.minAge || 0))
    return t('tooYoung', { age: control.dataset.minAge || '' });
  return null;
}

/** Fields hidden by CSS (the runner's name when the buyer runs) are not asked for. */
const shown = (c: HTMLElement) => c.getClientRects().length > 0;

function checkParticipants(_parts: FormParts, step: HTMLElement): HTMLElement[] {
  return all<Control>('fieldset[data-item] [data-check]', step)
    .filter(shown)
    .filter((c) => mark(c, answerProblem(c)));
}

function buyerProblem(control: HTMLInputElement): string | null {
  const value = control.value.trim();
  let message: string | null = null;
  if (control.dataset.check === 'required' && !value)
    message = t('isRequired', { label: control.dataset.label || '' });
  if (control.type === 'email' && value && !isEmail(value)) message = t('enterEmail');
  // a free registration's phone may be left out (phone-field.ts followFreeOrder), not mistyped
  const leftOut = value === '' && control.dataset.check === 'optional';
  if (control.type === 'tel' && !leftOut && !normalizePhone(value, pageMethods().country))
    message = phoneWords().invalid;
  return message;
}

function checkBuyer(_parts: FormParts, step: HTMLElement): HTMLElement[] {
  return all<HTMLInputElement>('[data-buyer] input', step).filter((c) => mark(c, buyerProblem(c)));
}

function checkWaiver(_parts: FormParts, step: HTMLElement): HTMLElement[] {
  const box = one<HTMLInputElement>('input[name=waiver_accepted]', step);
  return box && mark(box, box.checked ? null : t('acceptWaiver')) ? [box] : [];
}

function checkDonation(parts: FormParts): HTMLElement[] {
  const donation = parts.donation;
  if (!donation) return [];
  const raw = donation.value.replace(/[\s,]/g, '');
  const ok = raw === '' || /^\d+$/.test(raw);
  return mark(donation, ok ? null : t('wholeNumber')) ? [donation] : [];
}

function checkPayment(parts: FormParts): HTMLElement[] {
  const { methodRadios, payPhone } = parts;
  if (!payPhone) return [];
  const bad: HTMLElement[] = [];
  const chosen = chosenMethodOf(parts.form);
  const first = methodRadios[0];
  if (first && mark(first, chosen ? null : t('chooseHowToPay'))) bad.push(first);
  // Card asks for no number: whatever the hidden field holds is not checked.
  const problem = onPage(chosen) ? null : paymentPhoneProblem(payPhone.value, chosen);
  if (mark(payPhone, problem)) bad.push(payPhone);
  return bad;
}

// In the order of the fields on the page, so that the first problem found is the first one shown.
const CHECKS: Record<string, StepCheck[]> = {
  tickets: [checkTickets],
  details: [checkBuyer, checkParticipants, checkWaiver, checkDonation],
  payment: [checkPayment],
};

/** Checks one step; returns its first bad control, for focus. */
export function checkStep(parts: FormParts, step: HTMLElement): HTMLElement | null {
  const checks = CHECKS[step.dataset.step || ''] || [];
  const bad: HTMLElement[] = [];
  checks.forEach((check) => bad.push(...check(parts, step)));
  return bad[0] || null;
}

/**
 * The step's required fields still empty, in page order, without marking them: the main button
 * looks not ready while there are any (form-steps.ts). Fields hidden by a choice do not count.
 */
export function emptyRequired(parts: FormParts, step: HTMLElement): HTMLElement[] {
  const empty: HTMLElement[] = [];
  const name = step.dataset.step;
  if (name === 'tickets' && parts.selects[0] && orderTotals(parts).count === 0) empty.push(parts.selects[0]);
  // a date of birth (data-check="dob", asked when the ticket has a minimum age) is required too
  all<Control>('[data-check="required"],[data-check="dob"]', step)
    .filter((c) => shown(c) && c.value.trim() === '')
    .forEach((c) => empty.push(c));
  const waiver = one<HTMLInputElement>('input[name=waiver_accepted]', step);
  if (waiver && !waiver.checked) empty.push(waiver);
  if (name === 'payment' && parts.payPhone) {
    const first = parts.methodRadios[0];
    if (first && !parts.methodRadios.some((r) => r.checked)) empty.push(first);
    if (parts.payPhone.value.trim() === '' && !onPage(chosenMethodOf(parts.form))) empty.push(parts.payPhone);
  }
  return empty;
}
