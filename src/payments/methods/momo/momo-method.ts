// MTN Mobile Money as the browser may know it (payment-method.ts); its adapter is momo-provider.ts.
import type { PaymentMethodInfo } from '../payment-method.ts';

export const momoMethod = {
  key: 'momo',
  labels: {
    en: { name: 'MTN Mobile Money', network: 'MTN', badge: 'MTN', menu: 'MTN *165#' },
    sw: { name: 'MTN Mobile Money', network: 'MTN', badge: 'MTN', menu: 'MTN *165#' },
  },
  country: 'UG',
  currencies: ['UGX'],
  prefixes: ['76', '77', '78', '79'],
  defaultFee: { percent_bp: 350, fixed_minor: 0 },
  provider: 'MTN MoMo',
  brand: { background: '#ffcb05', text: '#000' },
} as const satisfies PaymentMethodInfo<'momo'>;
