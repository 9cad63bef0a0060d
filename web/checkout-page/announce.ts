// Telling the buyer where they are when a step shows: "Step 2 of 5" in its heading, the step's
// name in the page title (what a screen reader reads on a new page), and focus on the heading so
// the reading starts there.
import { one } from './dom.ts';
import { t } from './messages.ts';

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
  if (count) count.textContent = t('stepCount', { position: place.position, count: place.count });
  const heading = one<HTMLElement>('h2', step);
  document.title = (heading ? heading.getAttribute('data-title') || '' : '') + ' – ' + place.baseTitle;
  if (place.focus && heading) {
    heading.setAttribute('tabindex', '-1');
    heading.focus();
    window.scrollTo(0, 0);
  }
}
