// The page script's timers, kept so that they all stop when the server's next page takes this
// one's place without a navigation (show-page.ts): the new page's script starts afresh in the same
// window, and the old countdowns and polls must not run on beside it.

const ids: number[] = [];
let stopped = false;

export function later(run: () => void, ms: number): void {
  if (!stopped) ids.push(window.setTimeout(run, ms));
}

export function every(run: () => void, ms: number): void {
  if (!stopped) ids.push(window.setInterval(run, ms));
}

/** Whether this page has been replaced: work still in flight then does nothing more. */
export function replaced(): boolean {
  return stopped;
}

export function stopTimers(): void {
  stopped = true;
  // Timeouts and intervals share one list of ids: clearTimeout ends both.
  ids.forEach((id) => window.clearTimeout(id));
}
