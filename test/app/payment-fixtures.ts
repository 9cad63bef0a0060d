// A successful payment attempt written directly, for tests of pages and guards that only read it
// (the security suite, browser checks); tests of how payments come about go through the simulator.
import { randomUUID } from 'node:crypto';
import { paymentAttempts } from '../../src/payments/payments.schema.ts';
import type { PaymentMethod } from '../../src/payments/provider.ts';
import { newId } from '../../src/platform/ids.ts';
import type { Harness } from '../helpers/harness.ts';

export async function insertSuccessfulPayment(
  h: Harness,
  options: { organizationId: string; orderId: string; method?: PaymentMethod; msisdn?: string },
) {
  const now = h.clock.now();
  const [row] = await h.service.ctx.database.db
    .insert(paymentAttempts)
    .values({
      id: newId('pay'),
      reference: randomUUID(),
      orderId: options.orderId,
      organizationId: options.organizationId,
      method: options.method ?? 'momo',
      msisdn: options.msisdn ?? '256770000001',
      amount: 31050,
      currency: 'UGX',
      status: 'successful',
      promptExpiresAt: now,
      createdAt: now,
      finalizedAt: now,
    })
    .returning();
  return row!;
}
