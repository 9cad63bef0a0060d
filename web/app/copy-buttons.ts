// "Copy" buttons next to a shown value (a client id, a secret): each names the element whose text
// it copies in data-copy. Without this script, or without the clipboard API, the buttons stay
// hidden and the value is still selectable text.

const SHOW_COPIED_MS = 2000;
const FAILED = 'Copying failed: select the text and copy it.';

function say(live: HTMLElement | null, text: string): void {
  if (live) live.textContent = text;
}

function wire(button: HTMLButtonElement, live: HTMLElement | null): void {
  button.hidden = false;
  button.addEventListener('click', () => {
    const target = document.getElementById(button.getAttribute('data-copy') ?? '');
    if (!target) return;
    navigator.clipboard.writeText((target.textContent ?? '').trim()).then(
      () => {
        say(live, button.getAttribute('data-done') || 'Copied');
        button.textContent = 'Copied';
        setTimeout(() => {
          button.textContent = button.getAttribute('data-label') || 'Copy';
        }, SHOW_COPIED_MS);
      },
      () => say(live, FAILED),
    );
  });
}

/** Shows and wires every copy button of the page; `copy-status` is the live region that announces. */
export function setUpCopyButtons(): void {
  // Only secure contexts have the clipboard API.
  if (!navigator.clipboard) return;
  const live = document.getElementById('copy-status');
  for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-copy]')) {
    wire(button, live);
  }
}
