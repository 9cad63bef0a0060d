// Telling the buyer where they are when a step shows: "Step 2 of 5" in its heading, the step's
// name in the page title (what a screen reader reads on a new page), and focus on the heading so
// the reading starts there. And a payment's outcome, said by the page's status region.
import { one } from './dom.ts';
import { t } from './messages.ts';
import { later } from './timers.ts';

/** How long a status region is on the page before its outcome is said again. */
const SAY_AFTER_MS = 250;
/** Where a payment's outcome is: the confirmation, or the wait screen once it no longer waits. */
const OUTCOME = '[data-success] [role="status"], [data-wait][data-poll="0"] [role="status"]';

export interface StepPlace {
  /** 1-based, among the steps this order goes through */
  position: number;
  count: number;
  /** the page's own title, which the step's name goes before */
  baseTitle: string;
  /** move focus (not on the first show: the page has just loaded) */
  focus: boolean;
}

export function announceStep(step: HTMLElement, place: StepPlace): void {
  const count = one<HTMLElement>('[data-step-count]', step);
  // The only step of the order says no "Step 1 of 1".
  if (count)
    count.textContent =
      place.count > 1 ? t('stepCount', { position: place.position, count: place.count }) : '';
  const heading = one<HTMLElement>('h2', step);
  document.title = (heading ? heading.getAttribute('data-title') || '' : '') + ' – ' + place.baseTitle;
  if (place.focus && heading) {
    heading.setAttribute('tabindex', '-1');
    heading.focus();
    window.scrollTo(0, 0);
  }
}

/**
 * The outcome (paid, declined, timed out) in the page's role="status" region, which the server
 * renders with its text (for a page without the script too). Screen readers announce a change to
 * a live region already on the page, not one that arrives with its text: a moment after the page
 * shows, its text is put in again, node for node, which looks the same.
 */
export function announceOutcome(): void {
  const region = one<HTMLElement>(OUTCOME);
  if (!region) return;
  later(() => {
    for (const node of Array.prototype.slice.call(region.childNodes) as Node[]) {
      region.replaceChild(node.cloneNode(true), node);
    }
  }, SAY_AFTER_MS);
}
