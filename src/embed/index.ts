// checkout.js: its build and the route that serves it.
export { BROWSER_SCRIPT_BUILD, buildSync, projectRoot, writeBuilt } from './build-checkout-js.ts';
export { CHECKOUT_JS_PATH, registerCheckoutJs } from './checkout-js.routes.ts';
