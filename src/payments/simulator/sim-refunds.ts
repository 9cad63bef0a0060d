// A simulated refund's life, the same on every network that keeps its payments in the shared state:
// it names a successful payment, is taken or refused as the payment's refund scenario says (the
// payer number's last two digits), and settles after the scenario's delay. A payment may be
// refunded in parts (a refund naming an amount, or a disbursement of a part); what its refunds not
// failed add up to never exceeds what it paid. Each network's routes (methods/<key>/sim-*.ts) speak
// their own wire format around it.
import { refundScenarioFor, type RefundScenario } from './sim-scenarios.ts';
import { later, scaled, type SimNetwork, type SimulatorState, type Transaction } from './sim-state.ts';

export interface SimRefund {
  network: SimNetwork;
  reference: string;
  /** the refunded payment's reference */
  paymentReference: string;
  amount: string | number;
  currency: string;
  scenario: RefundScenario;
  /** how it was asked: the network's refund, or (a part) a disbursement to the payer */
  via: 'refund' | 'disbursement';
  state: 'pending' | 'successful' | 'failed';
  providerId: string;
  at: Date;
}

/** Why a refund is refused at once, or the refund created (settling on its own as its scenario says). */
export function createRefund(
  state: SimulatorState,
  options: {
    network: SimNetwork;
    reference: string;
    payment: Transaction;
    amount: string | number;
    /** the network's own id of the refund, in its shape */
    providerId: string;
    /** default: refund */
    via?: SimRefund['via'];
  },
): SimRefund | 'duplicate' | 'already_refunded' | 'above_left' {
  const key = `${options.network}:${options.reference}`;
  if (state.refunds.has(key)) return 'duplicate';
  const { payment } = options;
  const taken = [...state.refunds.values()]
    .filter(
      (r) =>
        r.paymentReference === payment.reference && r.network === payment.network && r.state !== 'failed',
    )
    .reduce((sum, r) => sum + Number(r.amount), 0);
  const left = Number(payment.amount) - taken;
  if (left <= 0) return 'already_refunded';
  if (Number(options.amount) > left) return 'above_left';
  const scenario = refundScenarioFor(payment.msisdn);
  const refund: SimRefund = {
    network: options.network,
    reference: options.reference,
    paymentReference: payment.reference,
    amount: options.amount,
    currency: payment.currency,
    scenario,
    via: options.via ?? 'refund',
    state: 'pending',
    providerId: options.providerId,
    at: new Date(),
  };
  state.refunds.set(key, refund);
  if (scenario.settleAfterMs !== null) {
    const settle = () => {
      if (refund.state === 'pending') refund.state = scenario.fails ? 'failed' : 'successful';
    };
    if (scenario.settleAfterMs === 0) settle();
    else later(state, scaled(state, scenario.settleAfterMs), settle);
  }
  return refund;
}

/** The successful payment a refund names: by our reference, or by the provider's own id. */
export function refundablePayment(
  state: SimulatorState,
  network: SimNetwork,
  match: { reference?: string; providerId?: string },
): Transaction | undefined {
  if (match.reference !== undefined) {
    const txn = state.transactions.get(`${network}:${match.reference}`);
    return txn?.state === 'successful' ? txn : undefined;
  }
  for (const txn of state.transactions.values()) {
    if (txn.network === network && txn.providerId === match.providerId && txn.state === 'successful')
      return txn;
  }
  return undefined;
}
