// The checkout form's script (progressive enhancement: every page works without it), built into
// one file by src/site/build-checkout-page.ts; the pages after the form have their own (pages.ts),
// so the form's first load carries none of theirs. It reads everything it needs from the data-*
// attributes and JSON blocks the server renders, and shares the phone and network rules with the
// server (src/orders/contact.ts, src/site/event-methods.ts) rather than copying them.
//
// What it adds: the form shown one step at a time with checks before moving on, the network
// guessed from the phone prefix (overridable), live fee and total for the chosen method, the
// review step, one submission per click, and the postMessage protocol of embedded sessions.
// Forms go with fetch, so that a 503 or a lost connection leaves the buyer on their page, told
// what happened, with "Try again" (send-form.ts).
import { one } from './dom.ts';
import { enhanceCheckoutForm } from './form-steps.ts';
import { startPage } from './start.ts';

startPage(() => {
  const form = one<HTMLFormElement>('form[data-checkout]');
  if (form) enhanceCheckoutForm(form);
});
