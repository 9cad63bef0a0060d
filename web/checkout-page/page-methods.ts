// The event's payment methods as the page states them on <body> (data-currency, data-methods:
// views/layout.ts): the script offers, guesses and checks those only, and reads numbers as the
// event's country's (Kenya for KES), as the server does.
import { eventMethods, type EventMethods } from '../../src/site/event-methods.ts';

let methods: EventMethods | null = null;

export function pageMethods(): EventMethods {
  if (methods) return methods;
  const data = document.body.dataset;
  const keys = (data.methods || '').split(' ').filter(Boolean);
  methods = eventMethods(data.currency || 'UGX', keys.length > 0 ? keys : undefined);
  return methods;
}

/**
 * The method the buyer chose: a checked radio, else the one a page with a single method sends as a
 * hidden field; null when none is chosen yet.
 */
export function chosenMethodOf(root: ParentNode): string | null {
  const checked = root.querySelector<HTMLInputElement>('input[name="payment_method"]:checked');
  if (checked) return checked.value;
  const only = root.querySelector<HTMLInputElement>('input[type="hidden"][name="payment_method"]');
  return only ? only.value : null;
}
