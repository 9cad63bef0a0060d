// Cards as the browser may know them (payment-method.ts); the adapter is card-provider.ts. The buyer
// types the card on the provider's own page, never ours: no phone, no country, no prefixes.
import type { PaymentMethodInfo } from '../payment-method.ts';

export const cardMethod = {
  key: 'card',
  labels: {
    en: { name: 'Card', network: 'Visa or Mastercard', badge: 'CARD', menu: '' },
    sw: { name: 'Kadi', network: 'Visa au Mastercard', badge: 'KADI', menu: '' },
  },
  country: null,
  currencies: ['UGX', 'KES'],
  prefixes: [],
  // Card processing costs more than mobile money; organizations may set their own.
  defaultFee: { percent_bp: 380, fixed_minor: 0 },
  provider: 'Flutterwave',
  brand: { background: '#1a1f71', text: '#fff' },
  hostedPage: true,
  optIn: true,
} as const satisfies PaymentMethodInfo<'card'>;
