// The simulator's test numbers and the outcomes they choose (sim-scenarios.ts), with each method's
// numbers as its definition gives them: what tests and `npm run simulator` read.
import { PAYMENT_METHOD_REGISTRY } from '../methods/registry.ts';
import type { PaymentMethod } from '../provider.ts';

export * from './sim-scenarios.ts';

/** A method's test number in national format, from its definition's testNumber. */
export function testPhoneNumber(method: PaymentMethod, code: string): string {
  if (!/^\d\d$/.test(code)) throw new TypeError('scenario code must be two digits');
  const testNumber = PAYMENT_METHOD_REGISTRY.find((m) => m.key === method)!.testNumber;
  if (!testNumber)
    throw new TypeError(`${method} is paid on the provider's page: it has test cards, not numbers`);
  return testNumber(code);
}
