// What an embedded checkout tells the page that frames it (SPEC.md section 6): ready on every
// load, cancel and close from the buyer, success from the confirmation. Redirect pages send
// nothing.
import { all } from './dom.ts';

export type Post = (message: Record<string, string>) => void;

/** Messages go to the exact embed origin, never '*'. */
export function embedMessenger(body: HTMLElement): Post {
  const embedOrigin = body.dataset.embedOrigin || '';
  const embedded = body.dataset.mode === 'embedded' && embedOrigin !== '';
  return (message) => {
    if (embedded && window.parent !== window) window.parent.postMessage(message, embedOrigin);
  };
}

/** ready now; cancel on the cancel form; close on the Close/Done buttons (shown only here) and Esc. */
export function wireEmbedControls(post: Post): void {
  post({ type: 'service:ready' });
  all<HTMLFormElement>('form[data-cancel]').forEach((form) =>
    form.addEventListener('submit', () => post({ type: 'service:cancel' })),
  );
  all<HTMLElement>('[data-close]').forEach((button) => {
    button.hidden = false;
    button.addEventListener('click', () => post({ type: 'service:close' }));
  });
  // Keys pressed inside the frame never reach the host page: Esc is passed on as a dismissal.
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') post({ type: 'service:close' });
  });
}
