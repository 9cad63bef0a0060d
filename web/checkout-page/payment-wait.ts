// The wait screen and its outcomes. While the prompt is on the buyer's phone: polls the order's
// status every 2 s (after a 503 again when its Retry-After says, after no answer backing off up to
// 15 s, and saying so from the second failure on; it never stops) and once the payment is settled shows the page
// the server answers with the outcome (a 503 or no answer then is one more error); counts down the
// time left to approve and the hold;
// shows "Resend prompt" when the server said it may; asks before cancelling, in a panel. On every
// load the result heading takes focus, so a screen reader starts there. The retry form guesses
// the network as the checkout form does.
import { formatCountdown } from '../../src/site/format.ts';
import { all, one } from './dom.ts';
import { t } from './messages.ts';
import { methodNameOf } from './page-methods.ts';
import { guessNetwork, hideNumberForCard } from './phone-field.ts';
import { showPage } from './show-page.ts';
import { every, later, replaced } from './timers.ts';

/** What GET /checkout/<id>/status.json answers (the fields read here). */
interface StatusOut {
  order_status: string;
  attempt_status: string | null;
  seconds_left: number;
  prompt_seconds_left: number;
}

const POLL_MS = 2000;
const MAX_BACKOFF_MS = 15000;

function settled(s: StatusOut): boolean {
  return (
    s.order_status !== 'pending' || (s.attempt_status !== 'pending' && s.attempt_status !== 'submitting')
  );
}

/** A countdown shown in `selector`, from `seconds` now; `set` moves it to a new server figure. */
function countdown(selector: string, seconds: number) {
  const clock = one<HTMLElement>(selector);
  let deadline = Date.now() + seconds * 1000;
  const show = () => {
    if (clock) clock.textContent = formatCountdown(Math.max(0, Math.round((deadline - Date.now()) / 1000)));
  };
  if (clock) every(show, 1000);
  return (next: number) => {
    deadline = Date.now() + next * 1000;
    show();
  };
}

function wireCancelPanel(): void {
  const ask = one<HTMLAnchorElement>('[data-cancel-ask]');
  const panel = one<HTMLElement>('[data-cancel-panel]');
  const keep = one<HTMLElement>('[data-cancel-keep]');
  if (!ask || !panel || !keep) return;
  const line = ask.parentElement as HTMLElement;
  ask.addEventListener('click', (event) => {
    event.preventDefault();
    panel.hidden = false;
    line.hidden = true;
    one<HTMLElement>('h2', panel)?.focus();
  });
  keep.addEventListener('click', () => {
    panel.hidden = true;
    line.hidden = false;
    ask.focus();
  });
}

export function enhanceWaitScreen(wait: HTMLElement): void {
  const heading = one<HTMLElement>('h2', wait);
  if (heading && document.activeElement !== heading) heading.focus();

  const polling = wait.dataset.poll === '1';
  const statusUrl = wait.dataset.statusUrl || '';
  const hold = countdown('[data-countdown]', Number(wait.dataset.secondsLeft || 0));
  const prompt = countdown('[data-prompt-countdown]', Number(wait.dataset.promptSecondsLeft || 0));
  let errors = 0;
  let note: HTMLElement | null = null;
  /** A check that got no usable answer: try `again` later, and after two in a row say so. */
  const failed = (again: () => void, retryAfter: string | null) => {
    errors++;
    if (errors >= 2 && !note) {
      note = document.createElement('p');
      note.className = 'notice bad';
      note.textContent = t('stillChecking');
      (one('[role="status"]', wait) || wait).appendChild(note);
    }
    // A 503 says when to come back; with no answer at all, back off.
    const asked = Number(retryAfter) * 1000;
    const delay = asked > 0 ? Math.max(asked, POLL_MS) : POLL_MS * 2 ** errors;
    later(again, Math.min(delay, MAX_BACKOFF_MS));
  };
  const answered = () => {
    errors = 0;
    if (note) note.remove();
    note = null;
  };
  /** The page for the settled payment, shown in place of this one once it comes. */
  const showOutcome = () => {
    fetch(location.href, { headers: { accept: 'text/html' }, cache: 'no-store' })
      .then((res) =>
        res.text().then((markup) => {
          if (replaced()) return;
          if (res.status === 503) return failed(showOutcome, res.headers.get('retry-after'));
          showPage(markup, res.redirected ? res.url : null);
        }),
      )
      .catch(() => failed(showOutcome, null));
  };
  const poll = () => {
    fetch(statusUrl, { headers: { accept: 'application/json' }, cache: 'no-store' })
      .then((res) => {
        if (!res.ok) return failed(poll, res.headers.get('retry-after'));
        return res.json().then((s: StatusOut) => {
          if (replaced()) return;
          answered();
          hold(s.seconds_left);
          prompt(s.prompt_seconds_left);
          if (settled(s)) showOutcome();
          else later(poll, POLL_MS);
        });
      })
      .catch(() => failed(poll, null));
  };
  if (polling) later(poll, POLL_MS);

  const resend = one<HTMLFormElement>('form[data-resend]');
  if (resend && resend.hidden) {
    later(() => (resend.hidden = false), Number(resend.dataset.resendIn || 0) * 1000);
  }
  wireCancelPanel();

  const phone = one<HTMLInputElement>('[data-pay-phone]');
  const radios = all<HTMLInputElement>('input[type="radio"][name="payment_method"]:not([disabled])');
  const guessNote = one<HTMLElement>('[data-guess]');
  const say = (text: string) => guessNote && (guessNote.textContent = text);
  if (phone) {
    hideNumberForCard(phone.form || document, phone, radios);
    guessNetwork(phone, radios, {
      chosen: false,
      onGuess: (network) => say(t('guessedNetwork', { network: methodNameOf(network) })),
      onChoose: () => say(''),
    });
  }
}
