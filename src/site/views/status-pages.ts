// The payment pages after the form: the wait screen, its outcomes with the retry form, and the
// question before cancelling while a prompt is out (the confirmation and dead ends: end-pages.ts).
import type { EventWithTickets } from '../../events/index.ts';
import type { PaymentAttemptRow, PaymentMethod } from '../../payments/index.ts';
import type { OrderRow } from '../../orders/index.ts';
import { html, type FieldError, type Html } from '../../platform/index.ts';
import { fieldId } from '../checkout-form.ts';
import { formatCountdown, formatMoney, formatTime, maskPhone, nationalPhone } from '../format.ts';
import { localMethodName } from '../method-names.ts';
import { INTL_LOCALES } from '../messages/catalog.ts';
import { fill } from '../messages/fill.ts';
import { locale, msg } from '../messages/current.ts';
import { paidOnPage } from '../event-methods.ts';
import { offerFills, offerOf } from '../offer-words.ts';
import { errorNote, errorSummary, GUESS_NOTE, methodTile, onlyMethod, textField } from './fields.ts';
import { cardCancelWarning, cardPageRefresh, cardWaitingBody } from './card-wait.ts';
import { outcomeOf } from './outcomes.ts';
import { layout } from './layout.ts';
import {
  cancelForm,
  checkoutPath,
  collectErrors,
  partnerLabel,
  sentence,
  type PageSession,
} from './page-parts.ts';

/** True when the attempt is a card's (paid on the provider's page). */
function byCard(view: WaitView, attempt: PaymentAttemptRow | null): boolean {
  return attempt !== null && paidOnPage(offerOf(view.found), attempt.method);
}

/**
 * waiting: a prompt is out; failed: the last one failed or timed out; stopped: the buyer closed the
 * last one (another number or network); not_started: no prompt yet; closed: the order is settled.
 */
type WaitState = 'waiting' | 'failed' | 'stopped' | 'not_started' | 'closed';

export interface WaitView {
  session: PageSession;
  found: EventWithTickets;
  order: OrderRow;
  attempt: PaymentAttemptRow | null;
  /** per method, what the order would cost */
  /** the order's total on each method the event offers */
  totals: Partial<Record<PaymentMethod, number>>;
  now: Date;
  /** when "Resend prompt" shows for the open attempt (close-attempt.ts resendOpensAt) */
  resendAt?: Date | null;
  /** the open prompt was sent again at the buyer's request: the screen says when */
  resent?: boolean;
  /** the card payment just started: the page goes on to the card page (card-wait.ts) */
  toCardPage?: boolean;
  /** an embedded checkout's own tab, back from the card page (?tab=1) */
  tab?: boolean;
  /** a refusal shown on the waiting screen itself (a resend over the number's prompt limit) */
  notice?: string | null;
  errors?: FieldError[];
  startError?: string | null;
  /** values typed into the retry form */
  retry?: { method: string; phone: string };
  /** the refusal's error_code, on the error summary */
  errorCode?: string;
  /** payments of the order that failed, when it was cancelled because of them (payment-attempts.ts) */
  failedPayments?: number | null;
}

export function isOpen(attempt: Pick<PaymentAttemptRow, 'status'> | null): boolean {
  return attempt !== null && (attempt.status === 'submitting' || attempt.status === 'pending');
}

function waitState(order: OrderRow, attempt: PaymentAttemptRow | null, now: Date): WaitState {
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
  const m = msg().status;
  const { byField, summary } = collectErrors(view.errors ?? [], view.found);
  const { method, phone } = retryValues(view);
  const boxId = fieldId('payment_method');
  const methodError = byField.get('payment_method');
  const offer = offerOf(view.found);
  // With card among them the choice is of a way to pay, not of a network, and no prompt may go out.
  const card = offer.methods.some((pm) => paidOnPage(offer, pm.key));
  const legend = card ? msg().form.payWith : m.network;
  const detail = (pm: PaymentMethod) => formatMoney(totals[pm] ?? order.total, order.currency);
  const tile = (pm: PaymentMethod, first: boolean) =>
    methodTile({ boxId, method: pm, first, checked: method === pm, error: methodError, detail: detail(pm) });
  const methods =
    offer.methods.length === 1
      ? onlyMethod({
          boxId,
          method: offer.first,
          legend: m.network,
          detail: detail(offer.first),
          error: methodError,
        })
      : html`<fieldset class="field tiles${methodError ? ' invalid' : ''}" data-field="${boxId}">
          <legend>${legend}</legend>
          ${errorNote(boxId, methodError)} ${offer.methods.map((pm, i) => tile(pm.key, i === 0))}
          ${GUESS_NOTE}
        </fieldset>`;
  return html`<form method="post" action="${checkoutPath(session.id, '/retry')}" novalidate data-once>
    ${errorSummary(summary, view.errorCode)}
    <h3>${heading}</h3>
    ${methods}
    ${textField({
      id: fieldId('payment_phone'),
      name: 'payment_phone',
      label: m.mobileMoneyNumber,
      type: 'tel',
      value: phone,
      error: byField.get('payment_phone'),
      hint: m.retryPhoneHint,
      extra: html` autocomplete="tel" inputmode="tel" placeholder="${offerFills(offer).example}"
      data-pay-phone`,
    })}
    <div class="actions">
      <button type="submit" class="primary" data-prompt data-busy="${m.sending}">
        ${card ? m.card.pay : m.sendPrompt}
      </button>
    </div>
  </form>`;
}

function holdLine(order: OrderRow, now: Date, muted = false): Html {
  const left = secondsLeft(order, now);
  return html`<p${muted ? html` class="muted"` : ''}>
    ${sentence(msg().status.heldFor, { time: html`<strong data-countdown>${formatCountdown(left)}</strong>` })}
  </p>`;
}

/** Where the prompt went, as the buyer recognises it: "MTN Mobile Money number 0770 ••• 002". */
function promptTarget(attempt: PaymentAttemptRow): Html {
  const m = msg().status;
  if (!attempt.msisdn) return html`${m.card.target}`;
  return sentence(m.promptTarget, {
    network: localMethodName(attempt.method),
    number: html`<strong>${maskPhone(attempt.msisdn)}</strong>`,
  });
}

/** The words of the cancel confirmation, on the wait screen's panel and on its own page. */
function cancelWarning(view: WaitView, attempt: PaymentAttemptRow): Html {
  if (byCard(view, attempt)) return cardCancelWarning(attempt, view.found.event.name);
  const m = msg().status;
  const money = formatMoney(attempt.amount, attempt.currency);
  return html`<p>
      ${sentence(m.cancelWarning, {
        amount: html`<strong>${money}</strong>`,
        target: promptTarget(attempt),
        event: view.found.event.name,
      })}
    </p>
    <p>${m.cancelHowTo}</p>`;
}

/** The final cancel: the session's cancel form, which also tells an embedding page (data-cancel). */
function confirmCancelForm(view: WaitView): Html {
  const { session } = view;
  const host = partnerLabel(session, session.cancelUrl);
  const label =
    session.uiMode === 'embedded' || !host ? msg().status.cancelAnyway : msg().common.cancelAndReturnTo(host);
  return html`<form method="post" action="${checkoutPath(session.id, '/cancel')}" data-cancel data-once>
    <input type="hidden" name="confirm" value="yes" />
    <button type="submit">${label}</button>
  </form>`;
}

function waitingBody(view: WaitView, attempt: PaymentAttemptRow): Html {
  const { session, order, now } = view;
  if (byCard(view, attempt)) return cardWaitingBody(session, attempt, holdLine(order, now, true), view.tab);
  const m = msg().status;
  const sid = session.id;
  const resendAt = view.resendAt ?? null;
  const resendIn = resendAt ? Math.max(0, Math.ceil((resendAt.getTime() - now.getTime()) / 1000)) : null;
  const promptLeft = promptSecondsLeft(attempt, now);
  return html`<div class="spinner" aria-hidden="true"></div>
    <div role="status">
      <p class="notice">
        ${sentence(m.promptSent, {
          amount: html`<strong>${formatMoney(attempt.amount, attempt.currency)}</strong>`,
          target: promptTarget(attempt),
        })}
      </p>
      ${
        view.resent
          ? html`<p class="notice">
              ${m.sentAgainAt(formatTime(attempt.createdAt, view.found.event.timezone, INTL_LOCALES[locale()]))}
            </p>`
          : ''
      }
      ${view.notice ? html`<p class="notice bad">${view.notice}</p>` : ''}
    </div>
    <p class="prompt-time">
      ${sentence(m.timeToApprove, {
        time: html`<strong data-prompt-countdown>${formatCountdown(promptLeft)}</strong>`,
      })}
    </p>
    <p class="muted">${fill(m.noPrompt, { menus: offerFills(offerOf(view.found)).menus })}</p>
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
              <button type="submit" data-prompt data-busy="${m.sending}">${m.resendPrompt}</button>
            </form>`
      }
      <form method="post" action="${checkoutPath(sid, '/switch')}" data-once>
        <button type="submit">
          ${offerOf(view.found).methods.length === 1 ? m.useAnotherNumber : m.useAnother}
        </button>
      </form>
    </div>
    ${holdLine(order, now, true)}
    <noscript
      ><p><a href="${checkoutPath(sid, '/pay')}">${m.checkStatus}</a></p></noscript
    >`;
}

/** Cancel on the wait screen asks first: a page of its own, or (with the script) this panel. */
function askCancel(view: WaitView, attempt: PaymentAttemptRow): Html {
  const { session } = view;
  const m = msg();
  const host = partnerLabel(session, session.cancelUrl);
  const label = session.uiMode === 'embedded' || !host ? m.common.cancel : m.common.cancelAndReturnTo(host);
  return html`<p class="cancel-form">
      <a href="${checkoutPath(session.id, '/cancel')}" data-cancel-ask aria-controls="cancel-panel"
        >${label}</a
      >
    </p>
    <section id="cancel-panel" class="cancel-panel" aria-labelledby="h-cancel" data-cancel-panel hidden>
      <h2 id="h-cancel" tabindex="-1">
        ${byCard(view, attempt) ? m.status.card.cancelTitle : m.status.cancelWhilePrompt}
      </h2>
      ${cancelWarning(view, attempt)}
      <div class="actions">
        <button type="button" class="primary" data-cancel-keep>${m.status.keepWaiting}</button>
        ${confirmCancelForm(view)}
      </div>
    </section>`;
}

/**
 * The heading's autofocus, on a page of its own: inside checkout.js's frame (another site) the
 * browser refuses it with a console error, and the page script moves focus instead.
 */
export function autofocus(session: PageSession): Html | '' {
  return session.uiMode === 'embedded' ? '' : html`autofocus`;
}

export function renderWaitPage(view: WaitView): string {
  const { session, found, order, attempt, now } = view;
  const m = msg().status;
  const state = waitState(order, attempt, now);
  const money = formatMoney(order.total, order.currency);
  const startError = view.startError ?? null;
  let body: Html;
  let title: string;
  const card = byCard(view, attempt);
  if (state === 'waiting' && attempt) {
    title = card ? m.card.waitTitle : m.approveTitle;
    body = waitingBody(view, attempt);
  } else if (state === 'failed' || state === 'not_started' || state === 'stopped') {
    const outcome = outcomeOf(attempt?.failureKind ?? order.failureKind ?? '', card);
    const anotherWay =
      offerOf(view.found).methods.length === 1 ? m.payAnotherNumberTitle : m.payAnotherWayTitle;
    title = state === 'failed' && outcome ? outcome.title : state === 'stopped' ? anotherWay : m.payTitle;
    const stoppedText =
      state === 'stopped' && attempt && !card
        ? html`<p class="notice">${sentence(m.promptMayStillBeOn, { target: promptTarget(attempt) })}</p>`
        : '';
    body = html`<div role="status">
        ${state === 'failed' ? html`<p class="notice bad">${outcome?.text ?? m.didNotGoThrough}</p>` : ''}
        ${stoppedText} ${startError ? html`<p class="notice bad">${startError}</p>` : ''}
      </div>
      <p>${sentence(m.orderTotal, { amount: html`<strong>${money}</strong>` })}</p>
      ${holdLine(order, now)} ${retryForm(view, state === 'failed' ? m.tryAgain : m.sendPrompt)}
      <p><a href="${checkoutPath(session.id)}">${m.changeOrder}</a></p>`;
  } else {
    const cancelled = order.status === 'cancelled';
    const failed = view.failedPayments ?? null;
    title = failed
      ? (outcomeOf(order.failureKind ?? '')?.title ?? m.cancelledTitle)
      : cancelled
        ? m.cancelledTitle
        : m.outcomes.hold_expired.title;
    const text = failed
      ? sentence(m.releasedAfterFailures, { count: String(failed) })
      : cancelled
        ? m.nothingCharged
        : m.outcomes.hold_expired.text;
    body = html`<div role="status">
        <p class="notice bad">${text}</p>
      </div>
      <div class="actions">
        <a class="button primary" href="${checkoutPath(session.id)}">${m.startAgain}</a>
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
      data-card="${card ? '1' : '0'}"
    >
      <h2 id="h-wait" tabindex="-1" ${autofocus(session)}>${title}</h2>
      ${body}
    </section>
    ${waiting ? askCancel(view, attempt) : cancelForm(session)}`;
  // Without the script the waiting page refreshes itself; with it, the script polls instead.
  const onward = waiting && card && view.toCardPage ? cardPageRefresh(session, attempt, now) : null;
  const head =
    onward ?? (waiting ? html`<noscript><meta http-equiv="refresh" content="5" /></noscript>` : undefined);
  return layout({
    title: `${errors ? msg().common.errorPrefix : ''}${title} – ${found.event.name}`,
    main,
    session,
    found,
    compact: true,
    page: '/pay',
    ...(head && { head }),
  }).value;
}

/** The cancel step of a buyer without the script, while a prompt is on the phone. */
export function renderCancelConfirmPage(view: WaitView, attempt: PaymentAttemptRow): string {
  const { session, found } = view;
  const m = msg().status;
  const main = html`<section aria-labelledby="h-cancel">
    <h2 id="h-cancel" tabindex="-1" ${autofocus(session)}>
      ${byCard(view, attempt) ? m.card.cancelTitle : m.cancelWhilePrompt}
    </h2>
    ${cancelWarning(view, attempt)}
    <div class="actions">
      <a class="button primary" href="${checkoutPath(session.id, '/pay')}">${m.keepWaiting}</a>
      ${confirmCancelForm(view)}
    </div>
  </section>`;
  return layout({
    title: m.cancelPageTitle(found.event.name),
    main,
    session,
    found,
    compact: true,
    page: '/cancel',
  }).value;
}
