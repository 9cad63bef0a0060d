// checkout.js's own words in Swahili, message for message as embed.en.ts.
import type { embedEn } from './embed.en.ts';

export const embedSw: typeof embedEn = {
  loadingCheckout: 'Inapakia malipo\u2026',
  closeCheckout: 'Funga malipo',
  checkoutLabel: 'Malipo',
  couldNotOpen: 'Malipo hayakufunguka. Hakuna kilichotumwa kwenye simu yako.',
  tryAgainLabel: 'Jaribu tena',
};
