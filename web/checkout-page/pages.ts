// The script of the checkout's pages after the form (the wait screen and its outcomes with the
// retry form, the confirmation, the dead ends; progressive enhancement as main.ts): the status
// polling with backoff and the countdowns, the confirmation's message to an embedding page, and
// the outcome said by the page's status region.
import { announceOutcome } from './announce.ts';
import { enhanceConfirmation } from './confirmation.ts';
import { one } from './dom.ts';
import { enhanceWaitScreen } from './payment-wait.ts';
import { startPage } from './start.ts';

startPage((post) => {
  const wait = one<HTMLElement>('[data-wait]');
  if (wait) enhanceWaitScreen(wait);
  const done = one<HTMLElement>('[data-success]');
  if (done) enhanceConfirmation(done, post);
  announceOutcome();
});
