// checkout.js's own words in English (web/checkout-js), with the page's header close control.
// Their own file: checkout.js bundles both languages, and nothing else of the catalog.

export const embedEn = {
  /** the modal's spinner */
  loadingCheckout: 'Loading checkout\u2026',
  /** the × of the modal (while loading or failed) and of the page's header */
  closeCheckout: 'Close checkout',
  /** the dialog's and the frame's names */
  checkoutLabel: 'Checkout',
  /** a checkout that could not open, when a try again may work */
  couldNotOpen: 'The checkout could not open. Nothing was sent to your phone.',
  tryAgainLabel: 'Try again',
};
