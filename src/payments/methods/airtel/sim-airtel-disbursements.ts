// The simulator's Airtel disbursements: a part of a payment goes back as a B2C disbursement to the
// payer, its reference "Refund <payment reference>" naming the payment, and is enquired under
// /standard/v1/disbursements. Airtel checks the encrypted PIN; the simulator takes any one present.
import { randomInt } from 'node:crypto';
import { isPaymentReference } from '../../provider.ts';
import { obj, readJson, sendJson, type SimCall } from '../../simulator/sim-http.ts';
import { createRefund, refundablePayment, type SimRefund } from '../../simulator/sim-refunds.ts';
import { countQuery, type SimulatorState } from '../../simulator/sim-state.ts';
import { airtelBad, airtelEnvelope, checkApiCall, refundRefusal } from './sim-airtel-wire.ts';

const notFound = () =>
  airtelEnvelope('200', 'Transaction not found', 'ESB000045', { response_code: 'DP00900001025' });

/** A disbursement's transaction, as its answer and its enquiry show it. */
function disbursementView(refund: SimRefund) {
  const status = refund.state === 'successful' ? 'TS' : refund.state === 'failed' ? 'TF' : 'TIP';
  return {
    reference_id: refund.paymentReference,
    airtel_money_id: status === 'TIP' ? null : refund.providerId,
    id: refund.reference,
    status,
    message:
      status === 'TS' ? 'Transaction is successful' : status === 'TF' ? 'Transaction failed' : 'In progress',
  };
}

/** The simulator's link from a disbursement to the payment it returns: "Refund <payment reference>". */
const REFUND_OF = /^Refund ([0-9a-f-]{36})$/i;

export async function disburseAirtel(state: SimulatorState, { req, res }: SimCall): Promise<void> {
  checkApiCall(state, req);
  const body = await readJson(req, (message) => airtelBad(message));
  const payee = obj(body.payee);
  const transaction = obj(body.transaction);
  const { amount, id, type } = transaction;
  if (typeof payee.msisdn !== 'string' || !/^[1-9]\d{8}$/.test(payee.msisdn)) {
    throw airtelBad('Invalid MSISDN: send the national number without the country code', 'ESB000033');
  }
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) {
    throw airtelBad('transaction.amount must be a positive number');
  }
  if (typeof id !== 'string' || id === '' || id.length > 64) throw airtelBad('transaction.id is required');
  if (type !== 'B2C') throw airtelBad('transaction.type must be B2C');
  // Airtel checks the encrypted PIN; the simulator takes any one present.
  if (typeof body.pin !== 'string' || body.pin === '') throw airtelBad('pin is required', 'ESB000039');
  const named = typeof body.reference === 'string' ? REFUND_OF.exec(body.reference)?.[1] : undefined;
  if (!named || !isPaymentReference(named)) {
    throw airtelBad(
      'the simulator needs reference "Refund <payment reference>" to know the payment returned',
    );
  }
  const payment = refundablePayment(state, 'airtel', { reference: named });
  if (!payment || payment.msisdn !== payee.msisdn) return sendJson(res, 200, notFound());
  const refund = createRefund(state, {
    network: 'airtel',
    reference: id,
    payment,
    amount,
    providerId: `DSIM${randomInt(1e9, 1e10 - 1)}`,
    via: 'disbursement',
  });
  if (typeof refund === 'string') {
    const refused = { message: 'Amount above what is left of the payment', responseCode: 'DP00900001004' };
    return sendJson(res, 200, refundRefusal(refund, refused));
  }
  const success = refund.state !== 'failed';
  sendJson(res, 200, {
    data: { transaction: disbursementView(refund) },
    status: {
      code: '200',
      message: success ? 'SUCCESS' : 'Disbursement refused',
      result_code: 'ESB000010',
      response_code: !success
        ? 'DP00900001004'
        : refund.state === 'successful'
          ? 'DP00900001001'
          : 'DP00900001006',
      success,
    },
  });
}

export const DISBURSEMENT_PATH = /^\/standard\/v1\/disbursements\/([^/]+)$/;

export function enquireAirtelDisbursement(state: SimulatorState, { req, res, path }: SimCall): void {
  checkApiCall(state, req);
  const reference = decodeURIComponent(DISBURSEMENT_PATH.exec(path)![1]!);
  countQuery(state, reference);
  const refund = state.refunds.get(`airtel:${reference}`);
  if (refund?.via !== 'disbursement') return sendJson(res, 200, notFound());
  sendJson(res, 200, {
    data: { transaction: disbursementView(refund) },
    status: {
      code: '200',
      message: 'SUCCESS',
      result_code: 'ESB000010',
      response_code:
        refund.state === 'successful'
          ? 'DP00900001001'
          : refund.state === 'failed'
            ? 'DP00900001004'
            : 'DP00900001006',
      success: true,
    },
  });
}
