// The hosted checkout's one first-party script (progressive enhancement: every page works without
// it), built into one file by src/site/build-checkout-page.ts. It reads everything it needs from
// the data-* attributes the server renders, and shares the phone and network rules with the
// server (src/orders/contact.ts) rather than copying them.
//
// What it adds: the form shown one step at a time with checks before moving on, the network
// guessed from the phone prefix (overridable), live fee and total for the chosen network, the
// review step, one submission per click, the wait screen's status polling with backoff and hold
// countdown, the auto-continue after success, and the postMessage protocol of embedded sessions.
// Forms go with fetch, so that a 503 or a lost connection leaves the buyer on their page, told
// what happened, with "Try again" (send-form.ts).
import { announceOutcome } from './announce.ts';
import { one } from './dom.ts';
import { enhanceConfirmation } from './confirmation.ts';
import { embedMessenger, reportPromptState, wireEmbedControls } from './embed-messages.ts';
import { enhanceCheckoutForm } from './form-steps.ts';
import { enhanceWaitScreen } from './payment-wait.ts';
import { sendFormsInPlace } from './send-form.ts';
import { reloadOnOtherEntry } from './show-page.ts';
import { wireOnceForms } from './submit-once.ts';
import { adoptFramingOrigin } from './unavailable.ts';

adoptFramingOrigin(document.body);
const post = embedMessenger(document.body);
wireEmbedControls(post);
wireOnceForms();

const form = one<HTMLFormElement>('form[data-checkout]');
if (form) enhanceCheckoutForm(form);
const wait = one<HTMLElement>('[data-wait]');
if (wait) enhanceWaitScreen(wait);
const done = one<HTMLElement>('[data-success]');
if (done) enhanceConfirmation(done, post);
announceOutcome();
// After every other submit handler: it sends what they let through.
sendFormsInPlace();
reloadOnOtherEntry();
reportPromptState(post);
// The mark scripts/checkout-budget.ts waits for: the page is enhanced and usable from here on.
document.documentElement.dataset.ready = '1';
