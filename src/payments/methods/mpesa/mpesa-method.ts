// M-Pesa as the browser may know it (payment-method.ts); its adapter is mpesa-provider.ts.
import type { PaymentMethodInfo } from '../payment-method.ts';

export const mpesaMethod = {
  key: 'mpesa',
  labels: {
    en: { name: 'M-Pesa', network: 'Safaricom', badge: 'M-PESA', menu: 'M-Pesa *334#' },
    sw: { name: 'M-Pesa', network: 'Safaricom', badge: 'M-PESA', menu: 'M-Pesa *334#' },
  },
  country: 'KE',
  currencies: ['KES'],
  // Safaricom's ranges as kenyan-numbers.ts lists them (700-729, 740-743, 745-746, 748, 757-759,
  // 768-769, 790-799, 110-115), written as the beginnings of the national number.
  prefixes: [
    ...['70', '71', '72', '740', '741', '742', '743', '745', '746', '748', '757', '758', '759'],
    ...['768', '769', '79', '110', '111', '112', '113', '114', '115'],
  ],
  defaultFee: { percent_bp: 350, fixed_minor: 0 },
  provider: 'M-Pesa',
  // Safaricom's green, darkened for white text to keep a 4.5:1 contrast.
  brand: { background: '#00703c', text: '#fff' },
} as const satisfies PaymentMethodInfo<'mpesa'>;
