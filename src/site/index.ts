// The hosted checkout pages on the SITE host, with their buyer limits.
export { CHECKOUT_SCRIPT, CHECKOUT_SCRIPT_MAP, CHECKOUT_STYLES, SITE_ICON } from './assets.ts';
export {
  checkPayment,
  estimateTotal,
  formMethod,
  parseDonation,
  parseUrlEncoded,
  readForm,
  stageOf,
  STAGES,
  toOrderInput,
} from './checkout-form.ts';
export type { FormBody, FormValues, Stage } from './checkout-form.ts';
export {
  formatDate,
  formatDateTime,
  formatMoney,
  maskPhone,
  nationalPhone,
  zoneLabel,
  zoneName,
} from './format.ts';
export { METHOD_NAMES, methodName } from './method-names.ts';
export { catalogOf, LOCALE_NAMES } from './messages/catalog.ts';
export type { Locale } from './messages/catalog.ts';
export { msg, pickLocale, runInLocale } from './messages/current.ts';
export { offerOf } from './offer-words.ts';
export { firstErrorStage } from './routes/page-replies.ts';
export { errorsBefore, formErrors } from './routes/submit-order.ts';
export { registerSiteRoutes } from './site.routes.ts';
export { renderFormPreview } from './views/form-page.ts';
export type { FormContent } from './views/form-page.ts';
export { anyOnlyHeld, isOnSale } from './views/steps/tickets-step.ts';
