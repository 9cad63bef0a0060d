// Pages around the form: the payment wait screen with its outcomes and retry, the confirmation,
// and the clear dead ends (expired, not found, closed, cancelled, errors).
import type { CheckoutSessionRow } from '../../checkout/sessions.ts';
import type { EventWithTickets } from '../../events/events.ts';
import type { PaymentMethod } from '../../events/fees.ts';
import type { OrderOut, OrderRow } from '../../orders/order-out.ts';
import type { PaymentAttemptRow } from '../../payments/payment-attempts.ts';
import type { FieldError } from '../../platform/errors.ts';
import { fieldId } from '../checkout-form.ts';
import { formatCountdown, formatMoney, maskPhone, METHOD_NAMES, methodName } from '../format.ts';
import { attr, html, type Html } from '../../platform/html.ts';
import { cardNotYetAvailable, errorNote, errorSummary, methodRadio, textField } from './fields.ts';
import { layout } from './layout.ts';
import { cancelForm, checkoutPath, collectErrors, hostOf } from './page-parts.ts';

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

export type WaitState = 'waiting' | 'failed' | 'not_started' | 'closed';

export interface WaitView {
  session: CheckoutSessionRow;
  found: EventWithTickets;
  order: OrderRow;
  attempt: PaymentAttemptRow | null;
  /** per method, what the order would cost */
  totals: Record<PaymentMethod, number>;
  now: Date;
  errors?: FieldError[];
  startError?: string | null;
  /** values typed into the retry form */
  retry?: { method: string; phone: string };
  /** the refusal's error_code, on the error summary */
  errorCode?: string;
}

export function waitState(order: OrderRow, attempt: PaymentAttemptRow | null, now: Date): WaitState {
  const open = attempt !== null && (attempt.status === 'submitting' || attempt.status === 'pending');
  if (order.status !== 'pending') return 'closed';
  if (open) return 'waiting';
  if (order.holdExpiresAt && order.holdExpiresAt.getTime() <= now.getTime()) return 'closed';
  return attempt?.status === 'failed' ? 'failed' : 'not_started';
}

export function secondsLeft(order: Pick<OrderRow, 'status' | 'holdExpiresAt'>, now: Date): number {
  if (order.status !== 'pending' || !order.holdExpiresAt) return 0;
  return Math.max(0, Math.floor((order.holdExpiresAt.getTime() - now.getTime()) / 1000));
}

function retryForm(view: WaitView, heading: string): Html {
  const { session, order, attempt, totals } = view;
  const { byField, summary } = collectErrors(view.errors ?? [], view.found);
  const method = view.retry?.method ?? attempt?.method ?? order.paymentMethod ?? '';
  const phone =
    view.retry?.phone ?? (attempt ? `0${attempt.msisdn.slice(3)}` : `0${order.buyerPhone.slice(3)}`);
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

function holdLine(order: OrderRow, now: Date): Html {
  const left = secondsLeft(order, now);
  return html`<p>
    Your tickets are held for <strong data-countdown>${formatCountdown(left)}</strong> more.
  </p>`;
}

export function renderWaitPage(view: WaitView): string {
  const { session, found, order, attempt, now } = view;
  const state = waitState(order, attempt, now);
  const money = formatMoney(order.total, order.currency);
  const startError = view.startError ?? null;
  let body: Html;
  let title: string;
  if (state === 'waiting') {
    title = 'Approve the payment on your phone';
    body = html`<div class="spinner" aria-hidden="true"></div>
      <div aria-live="polite">
        <p class="notice">
          We sent a prompt for <strong>${money}</strong> to ${methodName(attempt?.method)} number
          <strong>${maskPhone(attempt?.msisdn ?? '')}</strong>. Enter your PIN on the phone to approve it.
        </p>
      </div>
      <p class="muted">
        No prompt after a minute? Open your mobile money menu (MTN *165#, Airtel *185#) and look for approvals
        waiting. This page updates by itself.
      </p>
      ${holdLine(order, now)}
      <noscript
        ><p><a href="${checkoutPath(session.id, '/pay')}">Check the payment status</a></p></noscript
      >`;
  } else if (state === 'failed' || state === 'not_started') {
    const kind = attempt?.failureKind ?? order.failureKind ?? '';
    const outcome = OUTCOMES[kind];
    title = state === 'failed' && outcome ? outcome.title : 'Pay for your order';
    body = html`<div aria-live="polite">
        ${state === 'failed' ? html`<p class="notice bad">${outcome?.text ?? 'The payment did not go through. You can try again.'}</p>` : ''}
        ${startError ? html`<p class="notice bad">${startError}</p>` : ''}
      </div>
      <p>Order total: <strong>${money}</strong></p>
      ${holdLine(order, now)} ${retryForm(view, state === 'failed' ? 'Try again' : 'Send the payment prompt')}
      <p><a href="${checkoutPath(session.id)}">Change the order</a></p>`;
  } else {
    title = order.status === 'cancelled' ? 'This order was cancelled' : OUTCOMES.hold_expired!.title;
    body = html`<p class="notice bad">
        ${order.status === 'cancelled' ? 'Nothing was charged for it.' : OUTCOMES.hold_expired!.text}
      </p>
      <p><a class="button primary" href="${checkoutPath(session.id)}">Start again</a></p>`;
  }
  const errors = (view.errors ?? []).length > 0;
  const main = html`<section
      aria-labelledby="h-wait"
      data-wait
      data-status-url="${checkoutPath(session.id, '/status.json')}"
      data-seconds-left="${secondsLeft(order, now)}"
      data-poll="${state === 'waiting' ? '1' : '0'}"
    >
      <h2 id="h-wait" tabindex="-1">${title}</h2>
      ${body}
    </section>
    ${cancelForm(session)}`;
  // Without the script the waiting page refreshes itself; with it, the script polls instead.
  const head =
    state === 'waiting' ? html`<noscript><meta http-equiv="refresh" content="5" /></noscript>` : undefined;
  return layout({
    title: `${errors ? 'Error: ' : ''}${title} – ${found.event.name}`,
    main,
    session,
    found,
    ...(head && { head }),
  }).value;
}

// ---------------------------------------------------------------------------------------------

export interface ConfirmationView {
  session: CheckoutSessionRow;
  found: EventWithTickets;
  order: OrderOut;
  /** right after paying: redirect sessions then continue to on_success_url */
  justPaid: boolean;
}

/** Seconds before a redirect session continues to the partner after paying (the buyer can stay). */
export const CONTINUE_SECONDS = 5;
const NOSCRIPT_CONTINUE_SECONDS = 10;

export function renderConfirmationPage(view: ConfirmationView): string {
  const { session, found, order, justPaid } = view;
  const embedded = session.uiMode === 'embedded';
  const successUrl =
    !embedded && session.successUrl && /^https?:\/\//i.test(session.successUrl) ? session.successUrl : null;
  const host = successUrl ? hostOf(successUrl) : null;
  const autoContinue = justPaid && successUrl !== null;
  const organizer = found.event.organizerName || found.organization.name;
  const support = found.event.supportEmail || found.organization.supportEmail;
  const main = html`<section
    aria-labelledby="h-done"
    data-success
    data-session-id="${session.id}"
    data-order-id="${order.id}"
    data-order-code="${order.order_code}"
    ${attr('data-continue-url', autoContinue ? successUrl : null)}${attr('data-continue-seconds', autoContinue ? CONTINUE_SECONDS : null)}
  >
    <h2 id="h-done" tabindex="-1">You are registered</h2>
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
    ${autoContinue ? html`<p hidden>Taking you back to ${host} in <span data-continue-count>${CONTINUE_SECONDS}</span> seconds.</p>` : ''}
    ${autoContinue ? html`<noscript><p>Taking you back to ${host} in ${NOSCRIPT_CONTINUE_SECONDS} seconds.</p></noscript>` : ''}
    <div class="actions">
      ${successUrl ? html`<a class="button primary" href="${successUrl}">Continue to ${host}</a>` : ''}
      ${autoContinue ? html`<button type="button" data-stay hidden>Stay on this page</button>` : ''}
      ${embedded ? html`<button type="button" class="primary" data-close hidden>Done</button>` : ''}
    </div>
  </section>`;
  const head =
    autoContinue && !/['"]/.test(successUrl!)
      ? html`<noscript
          ><meta http-equiv="refresh" content="${NOSCRIPT_CONTINUE_SECONDS};url=${successUrl}"
        /></noscript>`
      : undefined;
  return layout({
    title: `Registered – ${found.event.name}`,
    main,
    session,
    found,
    ...(head && { head }),
  }).value;
}

// ---------------------------------------------------------------------------------------------

function closeOrReturn(session: CheckoutSessionRow, label: string): Html {
  if (session.uiMode === 'embedded') {
    return html`<div class="actions">
      <button type="button" class="primary" data-close hidden>Close</button>
    </div>`;
  }
  const host = session.cancelUrl ? hostOf(session.cancelUrl) : null;
  return session.cancelUrl && host && /^https?:\/\//i.test(session.cancelUrl)
    ? html`<p><a class="button" href="${session.cancelUrl}">${label} ${host}</a></p>`
    : html``;
}

export function renderExpiredPage(session: CheckoutSessionRow, found: EventWithTickets | null): string {
  const main = html`<section aria-labelledby="h-expired">
    <h2 id="h-expired" tabindex="-1">This checkout has expired</h2>
    <p>Checkout links work for 24 hours. To register, start again from the website you came from.</p>
    ${closeOrReturn(session, 'Return to')}
  </section>`;
  return layout({ title: 'This checkout has expired', main, session, found }).value;
}

export function renderClosedPage(session: CheckoutSessionRow, found: EventWithTickets): string {
  const main = html`<section aria-labelledby="h-closed">
    <h2 id="h-closed" tabindex="-1">Registration is closed</h2>
    <p>Registration for ${found.event.name} is not open at the moment.</p>
    ${closeOrReturn(session, 'Return to')}
  </section>`;
  return layout({ title: `Registration is closed – ${found.event.name}`, main, session, found }).value;
}

export function renderCancelledPage(session: CheckoutSessionRow, found: EventWithTickets | null): string {
  const main = html`<section aria-labelledby="h-cancelled">
    <h2 id="h-cancelled" tabindex="-1">Checkout cancelled</h2>
    <p>Nothing was charged. You can close this page.</p>
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
