// The confirmation: an embedded page tells its host the order succeeded; a redirect page just
// paid continues to the partner's on_success_url after a visible countdown the buyer can stop.
import { one } from './dom.ts';
import type { Post } from './embed-messages.ts';

export function enhanceConfirmation(done: HTMLElement, post: Post): void {
  post({
    type: 'service:success',
    session_id: done.dataset.sessionId || '',
    order_id: done.dataset.orderId || '',
    order_code: done.dataset.orderCode || '',
  });
  const target = done.dataset.continueUrl;
  const counter = one<HTMLElement>('[data-continue-count]');
  const redirect = (document.body.dataset.mode || 'redirect') === 'redirect';
  if (!redirect || !target || !counter) return;
  const stay = one<HTMLButtonElement>('[data-stay]');
  let left = Number(done.dataset.continueSeconds || 5);
  const box = counter.parentElement as HTMLElement;
  box.hidden = false;
  if (stay) stay.hidden = false;
  const interval = window.setInterval(() => {
    left -= 1;
    counter.textContent = String(Math.max(0, left));
    if (left <= 0) {
      clearInterval(interval);
      location.assign(target);
    }
  }, 1000);
  if (stay)
    stay.addEventListener('click', () => {
      clearInterval(interval);
      box.hidden = true;
      stay.hidden = true;
    });
}
