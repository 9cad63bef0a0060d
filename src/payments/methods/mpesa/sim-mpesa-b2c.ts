// The simulator's Daraja B2C payments (POST /mpesa/b2c/v3/paymentrequest): money from the
// shortcode to a customer's number, which is how a part of an M-Pesa payment goes back. The fields
// are checked as Daraja checks them (a bad shape is a 400 at once); the initiator's credentials and
// the recipient are judged later, in the Result POSTed to ResultURL, as Daraja does. The payee's
// number chooses the outcome by its last two digits, like a reversal's payer (scenarios.ts 21-24).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isSafaricomNumber } from './kenyan-numbers.ts';
import { MPESA_SIM_CREDENTIALS as creds } from './sim-credentials.ts';
import { refundScenarioFor, type RefundScenario } from '../../simulator/sim-scenarios.ts';
import { isHttpUrl, sendJson, type HttpError, type SimCall } from '../../simulator/sim-http.ts';
import { later, scaled, type SimulatorState } from '../../simulator/sim-state.ts';

const COMMANDS = new Set(['BusinessPayment', 'SalaryPayment', 'PromotionPayment']);
/** Safaricom pays out no less than KES 10 by B2C. */
const MIN_SHILLINGS = 10;
const KENYAN_MSISDN = /^254[71]\d{8}$/;
/** What the simulated B2C account holds: each result reports its balance, as Daraja's does. */
const UTILITY_FUNDS = 1_000_000;

export interface MpesaB2cPayment {
  conversationId: string;
  /** ours: the refund's reference, as the client sent it */
  originatorConversationId: string;
  /** the payee, 2547XXXXXXXX */
  msisdn: string;
  /** whole shillings */
  amount: number;
  remarks: string;
  scenario: RefundScenario;
  state: 'pending' | 'successful' | 'failed';
  resultCode: string | null;
  /** the M-Pesa receipt of the payment out (TransactionID) */
  receipt: string;
}

/** What the B2C route borrows from the rest of the simulator's Daraja (sim-mpesa.ts). */
export interface B2cDeps {
  state: SimulatorState;
  checkBearer(req: IncomingMessage): void;
  readBody(req: IncomingMessage): Promise<Record<string, unknown>>;
  badRequest(field: string): HttpError;
  deliver(url: string, body: unknown): Promise<void>;
  receiptId(): string;
}

const within = (value: unknown, min: number, max: number): value is string =>
  typeof value === 'string' && value.trim().length >= min && value.length <= max;
const wholeShillings = (value: unknown) =>
  (typeof value === 'number' && Number.isSafeInteger(value)) ||
  (typeof value === 'string' && /^\d+$/.test(value));

/** DD.MM.YYYY HH:mm:ss in Nairobi time, as Daraja writes TransactionCompletedDateTime. */
function completedAt(now: Date): string {
  const [date, time] = new Date(now.getTime() + 3 * 3600_000).toISOString().split('T');
  const [year, month, day] = date!.split('-');
  return `${day}.${month}.${year} ${time!.slice(0, 8)}`;
}

function resultBody(payment: MpesaB2cPayment, queueTimeoutUrl: string, code: string, desc: string) {
  const parameters = [
    { Key: 'TransactionAmount', Value: payment.amount },
    { Key: 'TransactionReceipt', Value: payment.receipt },
    { Key: 'B2CRecipientIsRegisteredCustomer', Value: 'Y' },
    { Key: 'B2CChargesPaidAccountAvailableFunds', Value: 0 },
    { Key: 'ReceiverPartyPublicName', Value: `${payment.msisdn} - Simulated Payer` },
    { Key: 'TransactionCompletedDateTime', Value: completedAt(new Date()) },
    { Key: 'B2CUtilityAccountAvailableFunds', Value: UTILITY_FUNDS },
    { Key: 'B2CWorkingAccountAvailableFunds', Value: 0 },
  ];
  return {
    Result: {
      ResultType: 0,
      ResultCode: code === '0' ? 0 : code,
      ResultDesc: desc,
      OriginatorConversationID: payment.originatorConversationId,
      ConversationID: payment.conversationId,
      TransactionID: payment.receipt,
      ...(code === '0' ? { ResultParameters: { ResultParameter: parameters } } : {}),
      ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: queueTimeoutUrl } },
    },
  };
}

export function createMpesaB2c(deps: B2cDeps): {
  pay(call: SimCall): Promise<void>;
  payments(): MpesaB2cPayment[];
} {
  const { state, badRequest } = deps;
  const payments: MpesaB2cPayment[] = [];

  async function pay({ req, res }: SimCall): Promise<void> {
    deps.checkBearer(req);
    const body = await deps.readBody(req);
    const { OriginatorConversationID, InitiatorName, SecurityCredential, CommandID, Amount } = body;
    const { PartyA, PartyB, Remarks, QueueTimeOutURL, ResultURL, Occasion } = body;
    if (!within(OriginatorConversationID, 1, 64)) throw badRequest('OriginatorConversationID');
    if (!within(InitiatorName, 1, 100)) throw badRequest('InitiatorName');
    if (!within(SecurityCredential, 1, 2048)) throw badRequest('SecurityCredential');
    if (typeof CommandID !== 'string' || !COMMANDS.has(CommandID)) throw badRequest('CommandID');
    if (!wholeShillings(Amount) || Number(Amount) < MIN_SHILLINGS) throw badRequest('Amount');
    if (String(PartyA) !== creds.shortcode) throw badRequest('PartyA');
    if (!KENYAN_MSISDN.test(String(PartyB))) throw badRequest('PartyB');
    if (!within(Remarks, 2, 100)) throw badRequest('Remarks');
    if (typeof QueueTimeOutURL !== 'string' || !isHttpUrl(QueueTimeOutURL)) {
      throw badRequest('QueueTimeOutURL');
    }
    if (typeof ResultURL !== 'string' || !isHttpUrl(ResultURL)) throw badRequest('ResultURL');
    if (Occasion !== undefined && !within(Occasion, 0, 100)) throw badRequest('Occasion');
    const msisdn = String(PartyB);
    const payment: MpesaB2cPayment = {
      conversationId: `AG_${Date.now()}_${randomBytes(8).toString('hex')}`,
      originatorConversationId: OriginatorConversationID,
      msisdn,
      amount: Number(Amount),
      remarks: Remarks,
      scenario: refundScenarioFor(msisdn),
      state: 'pending',
      resultCode: null,
      receipt: deps.receiptId(),
    };
    payments.push(payment);
    sendJson(res, 200, {
      ConversationID: payment.conversationId,
      OriginatorConversationID: payment.originatorConversationId,
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
    });
    const finish = (code: string, desc: string) => {
      if (payment.state !== 'pending') return;
      payment.state = code === '0' ? 'successful' : 'failed';
      payment.resultCode = code;
      void deps.deliver(ResultURL, resultBody(payment, QueueTimeOutURL, code, desc));
    };
    if (InitiatorName !== creds.initiator || SecurityCredential !== creds.securityCredential) {
      return finish('2001', 'The initiator information is invalid.');
    }
    if (!isSafaricomNumber(msisdn)) {
      return finish(
        '2040',
        "Credit Party customer type (Unregistered or Registered Customer) can't be supported by the service.",
      );
    }
    const { scenario } = payment;
    if (scenario.settleAfterMs === null) return;
    later(state, scaled(state, scenario.settleAfterMs), () =>
      scenario.fails
        ? finish('1', 'The balance is insufficient for the transaction.')
        : finish('0', 'The service request is processed successfully.'),
    );
  }

  return { pay, payments: () => payments.map((p) => ({ ...p })) };
}
