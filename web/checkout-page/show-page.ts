// A page the server answered to a request the script made (a form sent with fetch, the wait
// screen's page once the payment settled), shown as a navigation would have shown it: the whole
// document replaced, its own script run, its URL in the address bar and the history. The browser
// clears the old page's listeners; its timers are stopped here (timers.ts).
import { stopTimers } from './timers.ts';

/** `url`: where a redirect led (a new history entry, as after a form's 303), else null. */
export function showPage(markup: string, url: string | null): void {
  stopTimers();
  if (url && url !== location.href) history.pushState(null, '', url);
  document.open();
  document.write(markup);
  document.close();
  // The document is the same one, which has had its autofocus: the new page's is done here.
  const first = document.querySelector<HTMLElement>('[autofocus]');
  if (first) first.focus();
}

/**
 * Back (or Forward) to an entry of another address within this document (after showPage): the
 * browser changes only the address, so the page for it is loaded. Entries of this page's own
 * address (the form's steps) are the page's to show.
 */
export function reloadOnOtherEntry(): void {
  const shown = location.pathname + location.search;
  addEventListener('popstate', () => {
    if (location.pathname + location.search !== shown) location.reload();
  });
}
