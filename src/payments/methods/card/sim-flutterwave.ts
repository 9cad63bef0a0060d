// The simulator's Flutterwave, served under /flutterwave: the Standard (hosted payment) API with a
// fixed secret key (create, verify by reference, refunds), and the hosted card page at /pay/<id>
// (sim-flutterwave-hosted.ts). Before the card is submitted (or after a cancel) verify finds nothing,
// as at Flutterwave.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { FLUTTERWAVE_SIM_CREDENTIALS as creds } from './sim-credentials.ts';
import { hostedPage, PAGE_PATH } from './sim-flutterwave-hosted.ts';
import {
  newId,
  transactionView,
  type FlutterwaveSim,
  type FlwPayment,
  type FlwRefund,
} from './sim-flutterwave-state.ts';
import {
  header,
  HttpError,
  isHttpUrl,
  obj,
  readJson,
  sendJson,
  type SimCall,
} from '../../simulator/sim-http.ts';
import { countQuery, later, scaled, type SimulatorState } from '../../simulator/sim-state.ts';

export { createFlutterwaveSim, type FlutterwaveWebhook } from './sim-flutterwave-state.ts';

/** A refund is pending this long (unscaled), then completed. */
const REFUND_SETTLE_MS = 2_000;

const flwError = (status: number, message: string) =>
  new HttpError(status, { status: 'error', message, data: null });

function checkSecretKey(req: IncomingMessage): void {
  if (header(req, 'authorization') !== `Bearer ${creds.secretKey}`) {
    throw flwError(401, 'Invalid authorization key');
  }
}

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

function verifyByReference(state: SimulatorState, flw: FlutterwaveSim, { req, res }: SimCall): void {
  checkSecretKey(req);
  const txRef = new URL(req.url ?? '/', 'http://simulator').searchParams.get('tx_ref') ?? '';
  countQuery(state, txRef);
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
    return verifyByReference(state, flw, call);
  if (req.method === 'POST' && REFUND_PATH.test(path)) return refund(state, flw, call);
  if (req.method === 'GET' && REFUND_STATUS_PATH.test(path)) return refundStatus(flw, call);
  throw flwError(404, 'Not found');
}
