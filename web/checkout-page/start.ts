// What both page scripts do on every page (main.ts: the form's; pages.ts: the pages after it):
// the embedding page's messages and controls, once-only forms, forms sent in place, the history,
// and the mark that the page is ready; `enhance` adds the page's own parts in between.
import { embedMessenger, reportPromptState, wireEmbedControls, type Post } from './embed-messages.ts';
import { sendFormsInPlace } from './send-form.ts';
import { reloadOnOtherEntry } from './show-page.ts';
import { wireOnceForms } from './submit-once.ts';
import { stopTimers } from './timers.ts';
import { adoptFramingOrigin } from './unavailable.ts';

export function startPage(enhance: (post: Post) => void): void {
  adoptFramingOrigin(document.body);
  const post = embedMessenger(document.body);
  wireEmbedControls(post);
  wireOnceForms();
  enhance(post);
  // After every other submit handler: it sends what they let through.
  sendFormsInPlace();
  // A form the browser sends itself (cancel, a card payment) leaves the page: a poll's outcome
  // shown meanwhile would replace the document and so end that navigation.
  document.addEventListener('submit', (event) => event.defaultPrevented || stopTimers());
  reloadOnOtherEntry();
  reportPromptState(post);
  // The mark scripts/checkout-budget.ts waits for: the page is enhanced and usable from here on.
  document.documentElement.dataset.ready = '1';
}
