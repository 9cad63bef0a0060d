// The simulator's Flutterwave state: its payments (by hosted link, tx_ref and transaction id),
// refunds and webhook deliveries, and a payment as verify and the webhook show it. Shared by the
// API (sim-flutterwave.ts) and the hosted page (sim-flutterwave-hosted.ts).
import { randomInt } from 'node:crypto';
import type { TestCard } from './sim-flutterwave-page.ts';

export interface FlwPayment {
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

export interface FlwRefund {
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

/** The transaction as verify and the webhook show it. */
export function transactionView(payment: FlwPayment): Record<string, unknown> {
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

/** A transaction or refund id Flutterwave-like in size, not yet taken. */
export const newId = (taken: Map<number, unknown>): number => {
  for (;;) {
    const id = randomInt(1_000_000, 999_999_999);
    if (!taken.has(id)) return id;
  }
};
