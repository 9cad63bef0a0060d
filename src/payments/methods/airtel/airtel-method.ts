// Airtel Money as the browser may know it (payment-method.ts); its adapter is airtel-provider.ts.
import type { PaymentMethodInfo } from '../payment-method.ts';

export const airtelMethod = {
  key: 'airtel',
  labels: {
    en: { name: 'Airtel Money', network: 'Airtel', badge: 'airtel', menu: 'Airtel *185#' },
    sw: { name: 'Airtel Money', network: 'Airtel', badge: 'airtel', menu: 'Airtel *185#' },
  },
  country: 'UG',
  currencies: ['UGX'],
  prefixes: ['70', '74', '75'],
  defaultFee: { percent_bp: 350, fixed_minor: 0 },
  provider: 'Airtel Money',
  brand: { background: '#e40000', text: '#fff' },
} as const satisfies PaymentMethodInfo<'airtel'>;
