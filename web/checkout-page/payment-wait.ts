// The wait screen while the prompt is on the buyer's phone: polls the order's status with backoff
// (1 s growing to 8 s, 15 s after errors), counts the hold down, and reloads once the payment is
// settled so the server shows the outcome. Its retry form guesses the network as the checkout
// form does.
import { formatCountdown } from '../../src/site/format.ts';
import { all, one } from './dom.ts';
import { guessNetwork } from './phone-field.ts';

/** What GET /checkout/<id>/status.json answers (the fields read here). */
interface StatusOut {
  order_status: string;
  attempt_status: string | null;
  seconds_left: number;
}

function settled(s: StatusOut): boolean {
  return (
    s.order_status !== 'pending' || (s.attempt_status !== 'pending' && s.attempt_status !== 'submitting')
  );
}

export function enhanceWaitScreen(wait: HTMLElement): void {
  const polling = wait.dataset.poll === '1';
  const statusUrl = wait.dataset.statusUrl || '';
  const clock = one<HTMLElement>('[data-countdown]');
  let deadline = Date.now() + Number(wait.dataset.secondsLeft || 0) * 1000;
  let delay = 1000;
  let timer = 0;

  const again = (nextDelay: number) => {
    delay = nextDelay;
    timer = window.setTimeout(poll, delay);
  };
  const poll = () => {
    fetch(statusUrl, { headers: { accept: 'application/json' }, cache: 'no-store' })
      .then((res) => (res.ok ? res.json() : Promise.reject(new Error(String(res.status)))))
      .then((s: StatusOut) => {
        deadline = Date.now() + s.seconds_left * 1000;
        if (settled(s)) location.reload();
        else again(Math.min(delay * 1.5, 8000));
      })
      .catch(() => again(Math.min(delay * 2, 15000)));
  };
  // At zero the hold is over: ask at once rather than at the next turn of the backoff.
  const tick = () => {
    const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    if (clock) clock.textContent = formatCountdown(left);
    if (left === 0 && polling) {
      clearTimeout(timer);
      poll();
    }
  };
  if (clock) window.setInterval(tick, 1000);
  if (polling) timer = window.setTimeout(poll, delay);

  const phone = one<HTMLInputElement>('[data-pay-phone]');
  const radios = all<HTMLInputElement>('input[name="payment_method"]:not([disabled])');
  if (phone) guessNetwork(phone, radios, { chosen: false });
}
