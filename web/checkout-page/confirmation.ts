// The confirmation: an embedded page tells its host the order succeeded. It stays until the buyer
// leaves (Continue or Done): nothing moves on by itself while the buyer reads the order code. Its
// heading takes focus by script (a frame of another site gets no autofocus), so a screen reader
// starts there.
import { one } from './dom.ts';
import type { Post } from './embed-messages.ts';

export function enhanceConfirmation(done: HTMLElement, post: Post): void {
  const heading = one<HTMLElement>('h2', done);
  if (heading && document.activeElement !== heading) heading.focus();
  post({
    type: 'service:success',
    session_id: done.dataset.sessionId || '',
    order_id: done.dataset.orderId || '',
    order_code: done.dataset.orderCode || '',
  });
}
