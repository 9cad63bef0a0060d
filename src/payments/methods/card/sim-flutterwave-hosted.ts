// The simulator's hosted Flutterwave card page, at /flutterwave/pay/<id>: the buyer types a test
// card (sim-flutterwave-page.ts), which is charged as its number chooses (with an OTP step for the
// 3-D Secure card); the buyer is sent back to the redirect_url and a charge.completed webhook
// carrying the secret hash is posted. Card numbers are typed here only, never on our pages.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { FLUTTERWAVE_SIM_CREDENTIALS as creds } from './sim-credentials.ts';
import { cardPage, endPage, otpPage, TEST_CARDS, TEST_OTP, type TestCard } from './sim-flutterwave-page.ts';
import {
  newId,
  transactionView,
  type FlutterwaveSim,
  type FlutterwaveWebhook,
  type FlwPayment,
} from './sim-flutterwave-state.ts';
import { HttpError, readBody, sendToReceiver, type SimCall } from '../../simulator/sim-http.ts';
import { later, scaled, type SimulatorState } from '../../simulator/sim-state.ts';

/** A card that never completes fails after this (unscaled), as a bank that never answers. */
const CARD_TIMEOUT_MS = 5 * 60_000;

function returnUrl(payment: FlwPayment, status: string): string {
  const url = new URL(payment.redirectUrl);
  url.searchParams.set('status', status);
  url.searchParams.set('tx_ref', payment.txRef);
  if (payment.id !== null) url.searchParams.set('transaction_id', String(payment.id));
  return url.toString();
}

const redirect = (res: ServerResponse, location: string) => {
  res.writeHead(303, { Location: location, 'Content-Length': 0 });
  res.end();
};

const sendHtml = (res: ServerResponse, status: number, html: string) => {
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(html),
    'Cache-Control': 'no-store',
  });
  res.end(html);
};

export const PAGE_PATH = /^\/pay\/([0-9a-f]{24})(\/otp|\/cancel)?$/;

function pageViewOf(payment: FlwPayment, error?: string, typed?: { number: string; expiry: string }) {
  return cardPage({
    title: payment.title || 'Payment',
    amount: `${payment.currency} ${payment.amount}`,
    action: `/flutterwave/pay/${payment.linkId}`,
    cancelUrl: `/flutterwave/pay/${payment.linkId}/cancel`,
    ...(error ? { error } : {}),
    ...(typed ? { typed } : {}),
  });
}

function showPage(payment: FlwPayment, res: ServerResponse): void {
  if (payment.state === 'awaiting_card') return sendHtml(res, 200, pageViewOf(payment));
  if (payment.state === 'awaiting_otp') {
    return sendHtml(
      res,
      200,
      otpPage({
        action: `/flutterwave/pay/${payment.linkId}/otp`,
        cancelUrl: `/flutterwave/pay/${payment.linkId}/cancel`,
      }),
    );
  }
  const status = payment.state;
  sendHtml(
    res,
    200,
    endPage({ message: `This payment is ${status}.`, continueUrl: returnUrl(payment, status) }),
  );
}

/** Charges the test card: final at once, an OTP step first, or pending until the timeout. */
function charge(state: SimulatorState, flw: FlutterwaveSim, payment: FlwPayment, card: TestCard): void {
  payment.card = card;
  payment.id = newId(flw.byId);
  payment.flwRef = `FLW-SIM-${randomBytes(6).toString('hex').toUpperCase()}`;
  flw.byId.set(payment.id, payment);
  switch (card.outcome) {
    case 'success':
      return finish(state, flw, payment, 'successful', 'Approved');
    case 'otp':
      payment.state = 'awaiting_otp';
      payment.processorResponse = 'Pending validation';
      return;
    case 'insufficient_funds':
      return finish(state, flw, payment, 'failed', 'Insufficient funds');
    case 'issuer_declined':
      return finish(state, flw, payment, 'failed', 'Declined by the card issuer: do not honour');
    case 'never_completes':
      payment.state = 'pending';
      payment.processorResponse = 'Awaiting the issuer';
      later(state, scaled(state, CARD_TIMEOUT_MS), () => {
        if (payment.state === 'pending') finish(state, flw, payment, 'failed', 'Transaction timed out');
      });
  }
}

function finish(
  state: SimulatorState,
  flw: FlutterwaveSim,
  payment: FlwPayment,
  outcome: 'successful' | 'failed',
  processorResponse: string,
): void {
  payment.state = outcome;
  payment.processorResponse = processorResponse;
  state.log.info(
    { network: 'flutterwave', reference: payment.txRef, state: outcome },
    'simulated card payment final',
  );
  void sendWebhook(state, flw, payment);
}

async function sendWebhook(state: SimulatorState, flw: FlutterwaveSim, payment: FlwPayment): Promise<void> {
  if (!flw.webhookUrl) return;
  const sent = await sendToReceiver(flw.webhookUrl, {
    headers: { 'verif-hash': creds.secretHash },
    body: { event: 'charge.completed', data: transactionView(payment) },
    cancel: state.callbackAborter.signal,
  });
  const delivery: FlutterwaveWebhook = { reference: payment.txRef, url: flw.webhookUrl, ...sent };
  if (sent.error !== undefined && !state.closed) {
    state.log.warn({ ...delivery }, 'Flutterwave webhook failed (not retried)');
  }
  flw.webhooks.push(delivery);
}

const cardOf = (digits: string) => TEST_CARDS.find((card) => card.number === digits);

async function submitCard(
  state: SimulatorState,
  flw: FlutterwaveSim,
  payment: FlwPayment,
  call: SimCall,
): Promise<void> {
  const form = new URLSearchParams(await readBody(call.req));
  if (payment.state !== 'awaiting_card') return redirect(call.res, `/flutterwave/pay/${payment.linkId}`);
  const number = (form.get('card_number') ?? '').replace(/[\s-]/g, '');
  const expiry = (form.get('expiry') ?? '').trim();
  const typed = { number: number.slice(0, 19), expiry: expiry.slice(0, 7) };
  const card = cardOf(number);
  const refuse = (message: string) => sendHtml(call.res, 422, pageViewOf(payment, message, typed));
  if (!card) return refuse('That card number is not a test card: use one listed below.');
  if (!/^(0[1-9]|1[0-2])\s*\/\s*\d{2}$/.test(expiry)) return refuse('Type the expiry as MM/YY, e.g. 12/30.');
  if (!/^\d{3,4}$/.test(form.get('cvv') ?? ''))
    return refuse('The CVV is the 3 digits on the back of the card.');
  charge(state, flw, payment, card);
  // Read anew: the charge moved it on from awaiting_card.
  const charged: FlwPayment = payment;
  if (charged.state === 'awaiting_otp') return redirect(call.res, `/flutterwave/pay/${charged.linkId}`);
  redirect(call.res, returnUrl(charged, charged.state));
}

async function submitOtp(
  state: SimulatorState,
  flw: FlutterwaveSim,
  payment: FlwPayment,
  call: SimCall,
): Promise<void> {
  const form = new URLSearchParams(await readBody(call.req));
  if (payment.state !== 'awaiting_otp') return redirect(call.res, `/flutterwave/pay/${payment.linkId}`);
  if (form.get('otp')?.trim() === TEST_OTP) finish(state, flw, payment, 'successful', 'Approved');
  else finish(state, flw, payment, 'failed', 'Declined: incorrect OTP');
  redirect(call.res, returnUrl(payment, payment.state));
}

function cancel(state: SimulatorState, flw: FlutterwaveSim, payment: FlwPayment, res: ServerResponse): void {
  if (payment.state === 'awaiting_card') {
    // No charge yet: nothing exists at Flutterwave, so verify keeps finding nothing.
    payment.state = 'cancelled';
    return redirect(res, returnUrl(payment, 'cancelled'));
  }
  if (payment.state === 'awaiting_otp') {
    finish(state, flw, payment, 'failed', 'Declined: the buyer cancelled the 3-D Secure step');
    return redirect(res, returnUrl(payment, 'cancelled'));
  }
  // A charge already made or in flight stays what it is.
  redirect(res, `/flutterwave/pay/${payment.linkId}`);
}

export async function hostedPage(state: SimulatorState, flw: FlutterwaveSim, call: SimCall): Promise<void> {
  const [, linkId, step] = PAGE_PATH.exec(call.path)!;
  const payment = flw.byLink.get(linkId!);
  if (!payment) throw new HttpError(404, endPage({ message: 'No such payment.', continueUrl: '/' }));
  const method = call.req.method;
  if (step === '/cancel' && method === 'GET') return cancel(state, flw, payment, call.res);
  if (step === '/otp' && method === 'POST') return submitOtp(state, flw, payment, call);
  if (step === undefined && method === 'GET') return showPage(payment, call.res);
  if (step === undefined && method === 'POST') return submitCard(state, flw, payment, call);
  throw new HttpError(
    405,
    endPage({ message: 'Not allowed.', continueUrl: `/flutterwave/pay/${payment.linkId}` }),
  );
}
