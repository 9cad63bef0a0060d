// Pages around the form: the payment wait screen with its outcomes and retry, the confirmation,
// and the clear dead ends (expired, not found, closed, cancelled, errors).
import type { EventWithTickets } from '../../events/events.ts';
import type { PaymentMethod } from '../../events/fees.ts';
import type { OrderOut, OrderRow } from '../../orders/order-out.ts';
import type { PaymentAttemptRow } from '../../payments/payment-attempts.ts';
import type { FieldError } from '../../platform/errors.ts';
import { fieldId } from '../checkout-form.ts';
import {
  formatCountdown,
  formatMoney,
  maskPhone,
  METHOD_NAMES,
  methodName,
  nationalPhone,
} from '../format.ts';
import { html, type Html } from '../../platform/html.ts';
import { cardNotYetAvailable, errorNote, errorSummary, methodRadio, textField } from './fields.ts';
import { layout } from './layout.ts';
import { cancelForm, checkoutPath, collectErrors, partnerLabel, type PageSession } from './page-parts.ts';

export interface Outcome {
  title: string;
  text: string;
  retry: boolean;
}

/** What each failure_kind means to the buyer, and whether paying again can help. */
export const OUTCOMES: Record<string, Outcome> = {
  payment_declined: {
    title: 'The payment was declined',
    text: 'The payment was not approved on the phone. You can try again, or pay with another number or network.',
    retry: true,
  },
  payment_timeout: {
    title: 'The payment prompt timed out',
    text: 'Nobody approved the prompt in time. Check that the phone is on and has signal, then try again.',
    retry: true,
  },
  insufficient_funds: {
    title: 'Not enough money on the account',
    text: 'The mobile money balance is too low for this payment. Top up and try again, or pay from another number.',
    retry: true,
  },
  invalid_phone_number: {
    title: 'That number cannot receive payment prompts',
    text: 'The number is not registered for mobile money on this network. Check it, or use another number or network.',
    retry: true,
  },
  provider_error: {
    title: 'The mobile money service had a problem',
    text: 'The network could not take the payment just now. Try again in a moment, or use the other network.',
    retry: true,
  },
  hold_expired: {
    title: 'Time ran out',
    text: 'Your tickets were released because the payment was not completed in time. You can start again.',
    retry: false,
  },
};

const START_ERRORS: Record<string, string> = {
  amount_below_minimum: 'This amount is below the mobile money minimum, so it cannot be paid by phone.',
  amount_too_large:
    'This amount is above what this mobile money network takes in one payment. Choose fewer tickets, or try the other network.',
  order_not_payable: 'This order can no longer be paid.',
  validation_failed: 'The payment could not be started: check the number and the network.',
  internal_error: 'The payment prompt could not be sent. Try again.',
};

export function startErrorText(code: string | undefined): string | null {
  return code ? (START_ERRORS[code] ?? START_ERRORS.internal_error!) : null;
}

/**
 * waiting: a prompt is out; failed: the last one failed or timed out; stopped: the buyer closed the
 * last one (another number or network); not_started: no prompt yet; closed: the order is settled.
 */
export type WaitState = 'waiting' | 'failed' | 'stopped' | 'not_started' | 'closed';

export interface WaitView {
  session: PageSession;
  found: EventWithTickets;
  order: OrderRow;
  attempt: PaymentAttemptRow | null;
  /** per method, what the order would cost */
  totals: Record<PaymentMethod, number>;
  now: Date;
  /** when "Resend prompt" shows for the open attempt (close-attempt.ts resendOpensAt) */
  resendAt?: Date | null;
  /** a refusal shown on the waiting screen itself (a resend over the number's prompt limit) */
  notice?: string | null;
  errors?: FieldError[];
  startError?: string | null;
  /** values typed into the retry form */
  retry?: { method: string; phone: string };
  /** the refusal's error_code, on the error summary */
  errorCode?: string;
}

export function isOpen(attempt: Pick<PaymentAttemptRow, 'status'> | null): boolean {
  return attempt !== null && (attempt.status === 'submitting' || attempt.status === 'pending');
}

export function waitState(order: OrderRow, attempt: PaymentAttemptRow | null, now: Date): WaitState {
  if (order.status !== 'pending') return 'closed';
  if (isOpen(attempt)) return 'waiting';
  if (order.holdExpiresAt && order.holdExpiresAt.getTime() <= now.getTime()) return 'closed';
  // A timed-out attempt is still followed by the job, but for the buyer it failed.
  if (attempt?.status === 'failed' || attempt?.status === 'timed_out') return 'failed';
  return attempt?.status === 'closed' ? 'stopped' : 'not_started';
}

export function secondsLeft(order: Pick<OrderRow, 'status' | 'holdExpiresAt'>, now: Date): number {
  if (order.status !== 'pending' || !order.holdExpiresAt) return 0;
  return Math.max(0, Math.floor((order.holdExpiresAt.getTime() - now.getTime()) / 1000));
}

/** Seconds left to approve an open prompt on the phone (its provider's window), else 0. */
export function promptSecondsLeft(attempt: PaymentAttemptRow | null, now: Date): number {
  if (!attempt || !isOpen(attempt)) return 0;
  return Math.max(0, Math.ceil((attempt.promptExpiresAt.getTime() - now.getTime()) / 1000));
}

/** The form's method and number: what was typed, else the last prompt's, else the buyer's own. */
function retryValues(view: WaitView): { method: string; phone: string } {
  const { order, attempt } = view;
  return {
    method: view.retry?.method ?? attempt?.method ?? order.paymentMethod ?? '',
    phone: view.retry?.phone ?? nationalPhone(attempt?.msisdn ?? order.buyerPhone),
  };
}

function retryForm(view: WaitView, heading: string): Html {
  const { session, order, totals } = view;
  const { byField, summary } = collectErrors(view.errors ?? [], view.found);
  const { method, phone } = retryValues(view);
  const boxId = fieldId('payment_method');
  const methodError = byField.get('payment_method');
  const radio = (m: PaymentMethod, first: boolean) =>
    methodRadio({
      boxId,
      method: m,
      first,
      checked: method === m,
      error: methodError,
      label: html`${METHOD_NAMES[m]}: ${formatMoney(totals[m], order.currency)}`,
    });
  return html`<form method="post" action="${checkoutPath(session.id, '/retry')}" novalidate data-once>
    ${errorSummary(summary, view.errorCode)}
    <h3>${heading}</h3>
    <fieldset class="field${methodError ? ' invalid' : ''}" data-field="${boxId}">
      <legend>Network</legend>
      ${errorNote(boxId, methodError)} ${radio('momo', true)} ${radio('airtel', false)}
      ${cardNotYetAvailable(boxId)}
    </fieldset>
    ${textField({
      id: fieldId('payment_phone'),
      name: 'payment_phone',
      label: 'Mobile money number',
      type: 'tel',
      value: phone,
      error: byField.get('payment_phone'),
      hint: 'The same number, or another one: the prompt goes to this phone.',
      extra: html` autocomplete="tel" inputmode="tel" data-pay-phone`,
    })}
    <div class="actions">
      <button type="submit" class="primary" data-busy="Sending…">Send the payment prompt</button>
    </div>
  </form>`;
}

function holdLine(order: OrderRow, now: Date, muted = false): Html {
  const left = secondsLeft(order, now);
  return html`<p${muted ? html` class="muted"` : ''}>
    Your tickets are held for <strong data-countdown>${formatCountdown(left)}</strong> more.
  </p>`;
}

/** Where the prompt went, as the buyer recognises it: "MTN Mobile Money number 0770 ••• 002". */
function promptTarget(attempt: PaymentAttemptRow): Html {
  return html`${methodName(attempt.method)} number <strong>${maskPhone(attempt.msisdn)}</strong>`;
}

/** The words of the cancel confirmation, on the wait screen's panel and on its own page. */
function cancelWarning(view: WaitView, attempt: PaymentAttemptRow): Html {
  const money = formatMoney(attempt.amount, attempt.currency);
  return html`<p>
      A payment prompt for <strong>${money}</strong> is on ${promptTarget(attempt)}. If you approve it, you
      will still be charged and registered for ${view.found.event.name}.
    </p>
    <p>To leave without paying, decline the prompt on the phone (or let it expire), then cancel.</p>`;
}

/** The final cancel: the session's cancel form, which also tells an embedding page (data-cancel). */
function confirmCancelForm(view: WaitView): Html {
  const { session } = view;
  const host = partnerLabel(session, session.cancelUrl);
  const label = session.uiMode === 'embedded' || !host ? 'Cancel anyway' : `Cancel and return to ${host}`;
  return html`<form method="post" action="${checkoutPath(session.id, '/cancel')}" data-cancel data-once>
    <input type="hidden" name="confirm" value="yes" />
    <button type="submit">${label}</button>
  </form>`;
}

function waitingBody(view: WaitView, attempt: PaymentAttemptRow): Html {
  const { session, order, now } = view;
  const sid = session.id;
  const resendAt = view.resendAt ?? null;
  const resendIn = resendAt ? Math.max(0, Math.ceil((resendAt.getTime() - now.getTime()) / 1000)) : null;
  const promptLeft = promptSecondsLeft(attempt, now);
  return html`<div class="spinner" aria-hidden="true"></div>
    <div role="status">
      <p class="notice">
        We sent a prompt for <strong>${formatMoney(attempt.amount, attempt.currency)}</strong> to
        ${promptTarget(attempt)}. Enter your PIN on the phone to approve it.
      </p>
      ${view.notice ? html`<p class="notice bad">${view.notice}</p>` : ''}
    </div>
    <p class="prompt-time">
      Time left to approve: <strong data-prompt-countdown>${formatCountdown(promptLeft)}</strong>
    </p>
    <p class="muted">
      No prompt? Open your mobile money menu (MTN *165#, Airtel *185#) and look for approvals waiting. This
      page updates by itself.
    </p>
    <div class="actions">
      ${
        resendIn === null
          ? ''
          : html`<form
              method="post"
              action="${checkoutPath(sid, '/resend')}"
              data-once
              data-resend
              data-resend-in="${resendIn}"
              ${resendIn > 0 ? html`hidden` : ''}
            >
              <button type="submit" data-busy="Sending…">Resend prompt</button>
            </form>`
      }
      <form method="post" action="${checkoutPath(sid, '/switch')}" data-once>
        <button type="submit">Use another number or network</button>
      </form>
    </div>
    ${holdLine(order, now, true)}
    <noscript
      ><p><a href="${checkoutPath(sid, '/pay')}">Check the payment status</a></p></noscript
    >`;
}

/** Cancel on the wait screen asks first: a page of its own, or (with the script) this panel. */
function askCancel(view: WaitView, attempt: PaymentAttemptRow): Html {
  const { session } = view;
  const host = partnerLabel(session, session.cancelUrl);
  const label = session.uiMode === 'embedded' || !host ? 'Cancel' : `Cancel and return to ${host}`;
  return html`<p class="cancel-form">
      <a href="${checkoutPath(session.id, '/cancel')}" data-cancel-ask aria-controls="cancel-panel"
        >${label}</a
      >
    </p>
    <section id="cancel-panel" class="cancel-panel" aria-labelledby="h-cancel" data-cancel-panel hidden>
      <h2 id="h-cancel" tabindex="-1">Cancel while a prompt is on your phone?</h2>
      ${cancelWarning(view, attempt)}
      <div class="actions">
        <button type="button" class="primary" data-cancel-keep>Keep waiting</button>
        ${confirmCancelForm(view)}
      </div>
    </section>`;
}

export function renderWaitPage(view: WaitView): string {
  const { session, found, order, attempt, now } = view;
  const state = waitState(order, attempt, now);
  const money = formatMoney(order.total, order.currency);
  const startError = view.startError ?? null;
  let body: Html;
  let title: string;
  if (state === 'waiting' && attempt) {
    title = 'Approve the payment on your phone';
    body = waitingBody(view, attempt);
  } else if (state === 'failed' || state === 'not_started' || state === 'stopped') {
    const kind = attempt?.failureKind ?? order.failureKind ?? '';
    const outcome = OUTCOMES[kind];
    title =
      state === 'failed' && outcome
        ? outcome.title
        : state === 'stopped'
          ? 'Pay with another number or network'
          : 'Pay for your order';
    const stoppedText =
      state === 'stopped' && attempt
        ? html`<p class="notice">
            The prompt sent to ${promptTarget(attempt)} may still be on that phone. Approve only one prompt:
            if you approve that one, your order is paid and you need not send another.
          </p>`
        : '';
    body = html`<div role="status">
        ${state === 'failed' ? html`<p class="notice bad">${outcome?.text ?? 'The payment did not go through. You can try again.'}</p>` : ''}
        ${stoppedText} ${startError ? html`<p class="notice bad">${startError}</p>` : ''}
      </div>
      <p>Order total: <strong>${money}</strong></p>
      ${holdLine(order, now)} ${retryForm(view, state === 'failed' ? 'Try again' : 'Send the payment prompt')}
      <p><a href="${checkoutPath(session.id)}">Change the order</a></p>`;
  } else {
    title = order.status === 'cancelled' ? 'This order was cancelled' : OUTCOMES.hold_expired!.title;
    body = html`<div role="status">
        <p class="notice bad">
          ${order.status === 'cancelled' ? 'Nothing was charged for it.' : OUTCOMES.hold_expired!.text}
        </p>
      </div>
      <div class="actions">
        <a class="button primary" href="${checkoutPath(session.id)}">Start again</a>
      </div>`;
  }
  const errors = (view.errors ?? []).length > 0;
  const waiting = state === 'waiting' && attempt !== null;
  const main = html`<section
      aria-labelledby="h-wait"
      data-wait
      data-status-url="${checkoutPath(session.id, '/status.json')}"
      data-seconds-left="${secondsLeft(order, now)}"
      data-prompt-seconds-left="${promptSecondsLeft(attempt, now)}"
      data-poll="${waiting ? '1' : '0'}"
    >
      <h2 id="h-wait" tabindex="-1" autofocus>${title}</h2>
      ${body}
    </section>
    ${waiting ? askCancel(view, attempt) : cancelForm(session)}`;
  // Without the script the waiting page refreshes itself; with it, the script polls instead.
  const head = waiting ? html`<noscript><meta http-equiv="refresh" content="5" /></noscript>` : undefined;
  return layout({
    title: `${errors ? 'Error: ' : ''}${title} – ${found.event.name}`,
    main,
    session,
    found,
    compact: true,
    ...(head && { head }),
  }).value;
}

/** The cancel step of a buyer without the script, while a prompt is on the phone. */
export function renderCancelConfirmPage(view: WaitView, attempt: PaymentAttemptRow): string {
  const { session, found } = view;
  const main = html`<section aria-labelledby="h-cancel">
    <h2 id="h-cancel" tabindex="-1" autofocus>Cancel while a prompt is on your phone?</h2>
    ${cancelWarning(view, attempt)}
    <div class="actions">
      <a class="button primary" href="${checkoutPath(session.id, '/pay')}">Keep waiting</a>
      ${confirmCancelForm(view)}
    </div>
  </section>`;
  return layout({ title: `Cancel the payment? – ${found.event.name}`, main, session, found, compact: true })
    .value;
}

// ---------------------------------------------------------------------------------------------

export interface ConfirmationView {
  session: PageSession;
  found: EventWithTickets;
  order: OrderOut;
  /** right after paying (not when the buyer comes back to a complete session) */
  justPaid: boolean;
}

export function renderConfirmationPage(view: ConfirmationView): string {
  const { session, found, order } = view;
  const embedded = session.uiMode === 'embedded';
  const successUrl =
    !embedded && session.successUrl && /^https?:\/\//i.test(session.successUrl) ? session.successUrl : null;
  const host = partnerLabel(session, successUrl);
  const organizer = found.event.organizerName || found.organization.name;
  const support = found.event.supportEmail || found.organization.supportEmail;
  const main = html`<section
    aria-labelledby="h-done"
    data-success
    data-session-id="${session.id}"
    data-order-id="${order.id}"
    data-order-code="${order.order_code}"
  >
    <h2 id="h-done" tabindex="-1" autofocus>You are registered</h2>
    <p class="notice good">
      ${order.total > 0 ? html`Payment of <strong>${formatMoney(order.total, order.currency)}</strong> received.` : 'Your registration is confirmed.'}
    </p>
    <p>Your order code</p>
    <p class="code">${order.order_code}</p>
    <h3>Registrations</h3>
    <ul class="regs">
      ${order.registrations.map((r) => html`<li><strong>${r.participant_name}</strong>: ${r.ticket_label} <span class="muted">(${r.status})</span></li>`)}
    </ul>
    <h3>What happens next</h3>
    <ul>
      <li>Keep your order code: quote it to the organizer and at race-pack collection.</li>
      <li>
        ${organizer} will send race details to ${order.buyer.email ? 'the e-mail address you gave' : 'you'}.
      </li>
      ${support ? html`<li>Questions? Write to <a href="mailto:${support}">${support}</a> with your order code.</li>` : ''}
    </ul>
    <div class="actions">
      ${successUrl ? html`<a class="button primary" href="${successUrl}">Continue to ${host}</a>` : ''}
      ${embedded ? html`<button type="button" class="primary" data-close hidden>Done</button>` : ''}
    </div>
  </section>`;
  return layout({ title: `Registered – ${found.event.name}`, main, session, found, compact: true }).value;
}

// ---------------------------------------------------------------------------------------------

function closeOrReturn(session: PageSession, label: string): Html {
  if (session.uiMode === 'embedded') {
    return html`<div class="actions">
      <button type="button" class="primary" data-close hidden>Close</button>
    </div>`;
  }
  const host = partnerLabel(session, session.cancelUrl);
  return session.cancelUrl && host && /^https?:\/\//i.test(session.cancelUrl)
    ? html`<p><a class="button" href="${session.cancelUrl}">${label} ${host}</a></p>`
    : html``;
}

export function renderExpiredPage(session: PageSession, found: EventWithTickets | null): string {
  const main = html`<section aria-labelledby="h-expired">
    <h2 id="h-expired" tabindex="-1">This checkout has expired</h2>
    <p>Checkout links work for 24 hours. To register, start again from the website you came from.</p>
    ${closeOrReturn(session, 'Return to')}
  </section>`;
  return layout({ title: 'This checkout has expired', main, session, found }).value;
}

export function renderClosedPage(session: PageSession, found: EventWithTickets): string {
  const main = html`<section aria-labelledby="h-closed">
    <h2 id="h-closed" tabindex="-1">Registration is closed</h2>
    <p>Registration for ${found.event.name} is not open at the moment.</p>
    ${closeOrReturn(session, 'Return to')}
  </section>`;
  return layout({ title: `Registration is closed – ${found.event.name}`, main, session, found }).value;
}

export function renderCancelledPage(
  session: PageSession,
  found: EventWithTickets | null,
  /** the buyer left with a prompt still on the phone: approving it would still pay */
  promptLeft = false,
): string {
  const main = html`<section aria-labelledby="h-cancelled">
    <h2 id="h-cancelled" tabindex="-1">Checkout cancelled</h2>
    <p>
      ${
        promptLeft
          ? 'If a payment prompt is still on your phone, decline it: approving it would still charge and register you.'
          : 'Nothing was charged.'
      }
      You can close this page.
    </p>
    ${closeOrReturn(session, 'Return to')}
  </section>`;
  return layout({ title: 'Checkout cancelled', main, session, found }).value;
}

export function renderNotFoundPage(): string {
  const main = html`<h1>Checkout not found</h1>
    <p>This checkout link is not valid. Check the link, or start again from the website you came from.</p>`;
  return layout({ title: 'Checkout not found', main }).value;
}

export function renderErrorPage(options: { status: number; requestId: string; retryAfter?: string }): string {
  const { status } = options;
  const [heading, text] =
    status === 429
      ? [
          'Too many requests',
          `Please wait ${options.retryAfter ?? 'a few'} second${options.retryAfter === '1' ? '' : 's'} and try again.`,
        ]
      : status === 404
        ? ['Page not found', 'Check the link, or start again from the website you came from.']
        : status < 500
          ? ['That request could not be handled', 'Go back and try again.']
          : ['Something went wrong on our side', 'Please try again in a moment.'];
  const main = html`<h1>${heading}</h1>
    <p>${text}</p>
    <p class="muted">Reference for support: ${options.requestId}</p>`;
  return layout({ title: heading, main }).value;
}
