// The event's payment methods as the page states them (the JSON block checkout-offer:
// views/layout.ts): the script offers, guesses and checks those only, names them in the page's
// language, and reads numbers as the event's country's (Kenya for KES), as the server does.
import {
  eventMethods,
  paidOnPage,
  type EventMethods,
  type OfferedMethod,
} from '../../src/site/event-methods.ts';

interface PageMethod extends OfferedMethod {
  name: string;
}

let methods: EventMethods<PageMethod> | null = null;

export function pageMethods(): EventMethods<PageMethod> {
  if (methods) return methods;
  const block = document.getElementById('checkout-offer');
  let data: { currency?: string; methods?: PageMethod[] } = {};
  try {
    data = JSON.parse((block && block.textContent) || '{}') as typeof data;
  } catch {
    // A page without the block (none in practice) still reads numbers as Uganda's.
  }
  const list =
    data.methods && data.methods.length > 0
      ? data.methods
      : [{ key: '', name: '', country: null, prefixes: [] }];
  methods = eventMethods(data.currency || 'UGX', list);
  return methods;
}

/** A method's name in the page's language; the key of one the page does not offer. */
export function methodNameOf(key: string): string {
  const found = pageMethods().methods.find((m) => m.key === key);
  return found ? found.name : key;
}

/** True when `key` is paid on the provider's page (cards): no number is asked for it. */
export function onPage(key: string | null): boolean {
  return paidOnPage(pageMethods(), key);
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
