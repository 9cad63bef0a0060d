// The simulator's Flutterwave, served under /flutterwave: the Standard (hosted payment) API with a
// fixed secret key, and the hosted page at /pay/<id> where the buyer types a test card
// (flutterwave-page.ts). Submitting the page charges the card as its number chooses, sends the
// buyer back to the redirect_url, and posts a charge.completed webhook carrying the secret hash.
// Before the card is submitted (or after a cancel) verify finds nothing, as at Flutterwave.
import { randomBytes, randomInt } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SIMULATOR_CREDENTIALS } from './credentials.ts';
import { cardPage, endPage, otpPage, TEST_CARDS, TEST_OTP, type TestCard } from './flutterwave-page.ts';
import {
  header,
  HttpError,
  isHttpUrl,
  obj,
  readBody,
  readJson,
  sendJson,
  sendToReceiver,
  type SimCall,
} from './sim-http.ts';
import { later, scaled, type SimulatorState } from './sim-state.ts';

const creds = SIMULATOR_CREDENTIALS.flutterwave;

/** A card that never completes fails after this (unscaled), as a bank that never answers. */
const CARD_TIMEOUT_MS = 5 * 60_000;
/** A refund is pending this long (unscaled), then completed. */
const REFUND_SETTLE_MS = 2_000;

interface FlwPayment {
  linkId: string;
  txRef: string;
  /** major units, as sent */
  amount: number;
  currency: string;
  redirectUrl: string;
  customer: { email: string; name: string; phonenumber: string };
  title: string;
  state: 'awaiting_card' | 'awaiting_otp' | 'pending' | 'successful' | 'failed' | 'cancelled';
  /** Flutterwave's transaction id, once a card was charged */
  id: number | null;
  flwRef: string | null;
  processorResponse: string;
  card: TestCard | null;
  createdAt: Date;
}

interface FlwRefund {
  id: number;
  txId: number;
  amount: number;
  state: 'pending' | 'completed';
  createdAt: Date;
}

export interface FlutterwaveWebhook {
  reference: string;
  url: string;
  status: number | null;
  error?: string;
}

/** Flutterwave's part of one running simulator. */
export interface FlutterwaveSim {
  readonly webhookUrl: string | undefined;
  readonly byLink: Map<string, FlwPayment>;
  readonly byRef: Map<string, FlwPayment>;
  readonly byId: Map<number, FlwPayment>;
  readonly refunds: Map<number, FlwRefund>;
  readonly webhooks: FlutterwaveWebhook[];
}

export function createFlutterwaveSim(webhookUrl: string | undefined): FlutterwaveSim {
  return {
    webhookUrl,
    byLink: new Map(),
    byRef: new Map(),
    byId: new Map(),
    refunds: new Map(),
    webhooks: [],
  };
}

const flwError = (status: number, message: string) =>
  new HttpError(status, { status: 'error', message, data: null });

function checkSecretKey(req: IncomingMessage): void {
  if (header(req, 'authorization') !== `Bearer ${creds.secretKey}`) {
    throw flwError(401, 'Invalid authorization key');
  }
}

const newId = (taken: Map<number, unknown>): number => {
  for (;;) {
    const id = randomInt(1_000_000, 999_999_999);
    if (!taken.has(id)) return id;
  }
};

async function createPayment(flw: FlutterwaveSim, { req, res }: SimCall): Promise<void> {
  checkSecretKey(req);
  const body = await readJson(req, (message) => flwError(400, message));
  const customer = obj(body.customer);
  const { tx_ref: txRef, amount, currency, redirect_url: redirectUrl } = body;
  if (typeof txRef !== 'string' || txRef === '' || txRef.length > 100)
    throw flwError(400, 'tx_ref is required');
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) {
    throw flwError(400, 'amount must be a positive number');
  }
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
    throw flwError(400, 'currency is invalid');
  if (typeof redirectUrl !== 'string' || !isHttpUrl(redirectUrl))
    throw flwError(400, 'redirect_url is invalid');
  if (typeof customer.email !== 'string' || !customer.email.includes('@')) {
    throw flwError(400, 'customer.email is required');
  }
  const existing = flw.byRef.get(txRef);
  // The page is on the address the API was called at (the simulator listens on loopback only).
  const base = `http://${header(req, 'host') ?? '127.0.0.1'}/flutterwave`;
  if (existing) {
    // The same tx_ref again before the buyer paid: the same page (a resend after a lost answer).
    if (existing.state !== 'awaiting_card' || existing.amount !== amount || existing.currency !== currency) {
      throw flwError(400, 'Duplicate transaction reference');
    }
    return sendJson(res, 200, hostedLink(base, existing));
  }
  const payment: FlwPayment = {
    linkId: randomBytes(12).toString('hex'),
    txRef,
    amount,
    currency,
    redirectUrl,
    customer: {
      email: customer.email,
      name: typeof customer.name === 'string' ? customer.name : '',
      phonenumber: typeof customer.phonenumber === 'string' ? customer.phonenumber : '',
    },
    title: typeof obj(body.customizations).title === 'string' ? String(obj(body.customizations).title) : '',
    state: 'awaiting_card',
    id: null,
    flwRef: null,
    processorResponse: '',
    card: null,
    createdAt: new Date(),
  };
  flw.byLink.set(payment.linkId, payment);
  flw.byRef.set(txRef, payment);
  sendJson(res, 200, hostedLink(base, payment));
}

const hostedLink = (base: string, payment: FlwPayment) => ({
  status: 'success',
  message: 'Hosted Link',
  data: { link: `${base}/pay/${payment.linkId}` },
});

/** The transaction as verify and the webhook show it. */
function transactionView(payment: FlwPayment): Record<string, unknown> {
  const status = payment.state === 'awaiting_otp' ? 'pending' : payment.state;
  return {
    id: payment.id,
    tx_ref: payment.txRef,
    flw_ref: payment.flwRef,
    amount: payment.amount,
    currency: payment.currency,
    charged_amount: payment.amount,
    app_fee: 0,
    merchant_fee: 0,
    processor_response: payment.processorResponse,
    auth_model: payment.card?.outcome === 'otp' ? 'VBVSECURECODE' : 'noauth',
    status,
    payment_type: 'card',
    created_at: payment.createdAt.toISOString(),
    card: payment.card
      ? {
          first_6digits: payment.card.number.slice(0, 6),
          last_4digits: payment.card.number.slice(-4),
          type: 'VISA',
        }
      : null,
    customer: {
      name: payment.customer.name,
      email: payment.customer.email,
      phone_number: payment.customer.phonenumber,
    },
  };
}

function verifyByReference(flw: FlutterwaveSim, { req, res }: SimCall): void {
  checkSecretKey(req);
  const txRef = new URL(req.url ?? '/', 'http://simulator').searchParams.get('tx_ref') ?? '';
  const payment = flw.byRef.get(txRef);
  // As at Flutterwave: no charge yet (or a cancel) is no transaction, answered 400.
  if (!payment || payment.id === null) throw flwError(400, 'No transaction was found for this id');
  sendJson(res, 200, {
    status: 'success',
    message: 'Transaction fetched successfully',
    data: transactionView(payment),
  });
}

const REFUND_PATH = /^\/v3\/transactions\/(\d+)\/refund$/;

async function refund(
  state: SimulatorState,
  flw: FlutterwaveSim,
  { req, res, path }: SimCall,
): Promise<void> {
  checkSecretKey(req);
  const payment = flw.byId.get(Number(REFUND_PATH.exec(path)![1]));
  const body = await readJson(req, (message) => flwError(400, message));
  if (!payment) throw flwError(404, 'Transaction not found');
  if (payment.state !== 'successful') throw flwError(400, 'Only successful transactions can be refunded');
  const refunded = [...flw.refunds.values()]
    .filter((r) => r.txId === payment.id)
    .reduce((sum, r) => sum + r.amount, 0);
  const left = payment.amount - refunded;
  const amount = body.amount === undefined ? left : body.amount;
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) {
    throw flwError(400, 'amount must be a positive number');
  }
  if (left <= 0) throw flwError(400, 'Transaction has been fully refunded');
  if (amount > left) throw flwError(400, 'Refund amount exceeds the amount left on the transaction');
  const record: FlwRefund = {
    id: newId(flw.refunds),
    txId: payment.id!,
    amount,
    state: 'pending',
    createdAt: new Date(),
  };
  flw.refunds.set(record.id, record);
  later(state, scaled(state, REFUND_SETTLE_MS), () => (record.state = 'completed'));
  sendJson(res, 200, {
    status: 'success',
    message: 'Transaction refund initiated',
    data: refundView(record, payment),
  });
}

const refundView = (record: FlwRefund, payment: FlwPayment | undefined) => ({
  id: record.id,
  tx_id: record.txId,
  flw_ref: payment?.flwRef ?? null,
  amount_refunded: record.amount,
  status: record.state,
  destination: 'payment_source',
  created_at: record.createdAt.toISOString(),
});

const REFUND_STATUS_PATH = /^\/v3\/refunds\/(\d+)$/;

function refundStatus(flw: FlutterwaveSim, { req, res, path }: SimCall): void {
  checkSecretKey(req);
  const record = flw.refunds.get(Number(REFUND_STATUS_PATH.exec(path)![1]));
  if (!record) throw flwError(404, 'Refund not found');
  sendJson(res, 200, {
    status: 'success',
    message: 'Refund fetched',
    data: refundView(record, flw.byId.get(record.txId)),
  });
}

/** The redirect_url with the outcome as Flutterwave appends it. */
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

const PAGE_PATH = /^\/pay\/([0-9a-f]{24})(\/otp|\/cancel)?$/;

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

async function hostedPage(state: SimulatorState, flw: FlutterwaveSim, call: SimCall): Promise<void> {
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

/** Answers one request under /flutterwave; `call.path` has the prefix removed. */
export async function handleFlutterwaveRequest(
  state: SimulatorState,
  flw: FlutterwaveSim,
  call: SimCall,
): Promise<void> {
  const { req, path } = call;
  if (PAGE_PATH.test(path)) return hostedPage(state, flw, call);
  if (req.method === 'POST' && path === '/v3/payments') return createPayment(flw, call);
  if (req.method === 'GET' && path === '/v3/transactions/verify_by_reference')
    return verifyByReference(flw, call);
  if (req.method === 'POST' && REFUND_PATH.test(path)) return refund(state, flw, call);
  if (req.method === 'GET' && REFUND_STATUS_PATH.test(path)) return refundStatus(flw, call);
  throw flwError(404, 'Not found');
}
