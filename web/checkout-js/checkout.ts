// checkout.js: the embeddable checkout (docs/contract.md#embedded-checkout-script, with its browser
// messages and #script-error-codes). Defines one global, ServiceCheckout, with open(options) and
// close().
//
// Where it talks to: the SITE host fills in its own origin and the API origin when it serves this
// file (src/embed/checkout-js.routes.ts). The script then checks that it really was loaded from
// {site}/v1/checkout.js, since it trusts messages only from the site it came from; a copy served
// from anywhere else, or bundled into another file, reports misconfigured and opens nothing.
import { embedEn } from '../../src/site/messages/embed.en.ts';
import { embedSw } from '../../src/site/messages/embed.sw.ts';
import { createModal, type Modal } from './modal.ts';

declare const __SITE_ORIGIN__: string;
declare const __API_ORIGIN__: string;

export interface CheckoutResult {
  session_id: string;
  order_id: string;
  order_code: string;
}

export interface CheckoutError {
  error_code: string;
  message: string;
  /** the HTTP status, or 0 when there was no response */
  status: number;
}

export interface OpenOptions {
  publishableKey?: string;
  eventId?: string;
  sessionId?: string;
  prefill?: { buyer_name?: string; buyer_email?: string; buyer_phone?: string };
  clientReferenceId?: string;
  /** the checkout's language, over the browser's; the buyer may still switch on the page */
  locale?: 'en' | 'sw';
  onSuccess?: (result: CheckoutResult) => void;
  onCancel?: () => void;
  onClose?: () => void;
  onError?: (error: CheckoutError) => void;
}

export interface ServiceCheckout {
  open(options: OpenOptions): void;
  close(): void;
}

declare global {
  interface Window {
    ServiceCheckout?: ServiceCheckout;
  }
}

const SITE = __SITE_ORIGIN__;
const API = __API_ORIGIN__;
const SCRIPT_URL = SITE + '/v1/checkout.js';
/** What a checkout session id looks like (docs/architecture.md#identifiers). */
const SESSION_ID = /^cs_[A-Za-z0-9]{16,}$/;
/** The embedded checkout load time-out (docs/contract.md#limits). */
const LOAD_TIMEOUT_MS = 25000;
const CALLBACKS = ['onSuccess', 'onCancel', 'onClose', 'onError'] as const;
/** The modal's own words, from the page's catalog (src/site/messages), in both its languages. */
const WORDS = { en: embedEn, sw: embedSw };

// Read while this file runs: document.currentScript is null afterwards, and inside a bundle it is
// the bundle's own script. A query string (cache busting) is allowed; nothing else is.
const script = document.currentScript as HTMLScriptElement | null;
const fromSite = !!script && script.src.split(/[?#]/)[0] === SCRIPT_URL;

interface Checkout {
  options: OpenOptions;
  modal: Modal;
  timer: ReturnType<typeof setTimeout>;
  onMessage: (event: MessageEvent) => void;
  /** the frame's last service:state: a payment prompt is out on the buyer's phone */
  prompting?: boolean;
  /** ... and the buyer has typed into the form: closing would lose it */
  typedIn?: boolean;
  /** onSuccess has fired */
  paid?: boolean;
}

/** The open checkout, the one shown: what open() and close() look at. */
let current: Checkout | null = null;
/** A hidden checkout paid while another was open: its confirmation shows when that one closes. */
let paidLater: Checkout | null = null;

/** Runs a partner callback; if it throws, the modal carries on and the error surfaces on its own. */
function call<T>(callback: ((value: T) => void) | undefined, value?: T): void {
  if (typeof callback !== 'function') return;
  try {
    callback(value as T);
  } catch (error) {
    setTimeout(() => {
      throw error;
    });
  }
}

function report(options: OpenOptions, error_code: string, message: string, status: number): void {
  call(options.onError, { error_code, message, status });
}

function show(checkout: Checkout): void {
  current = checkout;
  checkout.modal.show();
}

function end(checkout: Checkout): void {
  removeEventListener('message', checkout.onMessage);
  checkout.modal.remove();
}

/**
 * Closes the checkout: overlay hidden first, then onCancel (after a cancel) and onClose. With a
 * payment prompt out the checkout is not open any more, but stays, hidden, its frame still polling
 * the order: paid, it fires onSuccess and shows its confirmation; unpaid, it goes away silently.
 */
function finish(checkout: Checkout, cancelled?: boolean): void {
  if (current !== checkout) return;
  current = null;
  clearTimeout(checkout.timer);
  checkout.modal.hide();
  if (!checkout.prompting) end(checkout);
  if (cancelled) call(checkout.options.onCancel);
  call(checkout.options.onClose);
  // Unless a callback opened another checkout meanwhile: then it waits for that one to close.
  if (paidLater && !current) {
    show(paidLater);
    paidLater = null;
  }
}

/**
 * Esc on the host page, and the modal's own × while the page loads: while a prompt is out, or with
 * something typed, the checkout page asks the buyer first (and then says close).
 */
function dismiss(checkout: Checkout): void {
  if (checkout.prompting || checkout.typedIn) checkout.modal.ask(SITE);
  else finish(checkout);
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

function open(options: OpenOptions): void {
  if (current) return;
  const o: OpenOptions = options || {};
  if (!fromSite) {
    return report(o, 'misconfigured', `Load checkout.js from ${SCRIPT_URL}; copies cannot open.`, 0);
  }
  const sessionId = o.sessionId;
  const byKey = sessionId == null;
  if (
    (byKey && !(isText(o.publishableKey) && isText(o.eventId))) ||
    [undefined, 'en', 'sw'].indexOf(o.locale) < 0 ||
    CALLBACKS.some((name) => o[name] != null && typeof o[name] !== 'function')
  ) {
    return report(
      o,
      'invalid_options',
      "Pass sessionId, or publishableKey and eventId; locale 'en' or 'sw'; callbacks as functions.",
      0,
    );
  }
  if (!byKey && !(typeof sessionId === 'string' && SESSION_ID.test(sessionId))) {
    return report(o, 'invalid_session', 'sessionId is not a checkout session id (cs_...).', 0);
  }

  /** `final`: the partner's to fix, whatever the status. The buyer never sees `message`. */
  const fail = (code: string, message: string, status: number, final?: boolean) => {
    if (current !== checkout) return;
    clearTimeout(checkout.timer);
    // Busy (429, 503), failing, unreachable or not loaded in time: the next try may well work, and
    // nothing reached the buyer's phone before the checkout showed. Else the partner's to fix.
    checkout.modal.fail(!final && (status > 428 || !status) && again);
    report(o, code, message, status);
  };
  /** The same open() again, from a modal put away quietly (no callbacks: nothing was closed). */
  const again = () => {
    checkout.modal.hide();
    end(checkout);
    current = null;
    open(o);
  };
  const checkout: Checkout = {
    options: o,
    modal: createModal(
      () => dismiss(checkout),
      WORDS[o.locale || (/^sw\b/i.test(navigator.language) ? 'sw' : 'en')],
    ),
    timer: setTimeout(() => fail('load_timeout', 'The checkout did not load in time.', 0), LOAD_TIMEOUT_MS),
    onMessage(event) {
      const data = event.data;
      // Only our site, and only our own frame: not another window, not another frame of the site.
      if (event.origin !== SITE || !checkout.modal.isFrame(event.source) || !data) return;
      const type = data.type;
      if (/^service:(ready|success)$/.test(type)) {
        clearTimeout(checkout.timer);
        checkout.modal.ready();
      }
      if (type === 'service:success') {
        if (checkout.paid) return;
        checkout.paid = true;
        call(checkout.options.onSuccess, {
          session_id: data.session_id,
          order_id: data.order_id,
          order_code: data.order_code,
        });
        // Closed while the prompt was out: back on the confirmation, or after the open one.
        if (!current) show(checkout);
        else if (current !== checkout) paidLater = checkout;
      } else if (type === 'service:state') {
        checkout.prompting = data.prompt === true;
        checkout.typedIn = data.typed === true;
        // The prompt ended unpaid: a hidden checkout has nothing left to watch.
        if (!checkout.prompting && !checkout.paid && current !== checkout) end(checkout);
      } else if (type === 'service:cancel') {
        finish(checkout, true);
      } else if (type === 'service:close') {
        finish(checkout);
      }
    },
  };
  current = checkout;
  addEventListener('message', checkout.onMessage);
  const load = (id: string) => checkout.modal.load(`${SITE}/checkout/${id}`);
  if (!byKey) {
    // A session made elsewhere may be for another page: its frame would be refused without a word
    // (frame-ancestors), so the site says whose it is, in a script (the page allows scripts from the
    // site, not always connections). No answer leaves the load time-out to tell.
    try {
      const probe = document.createElement('script');
      probe.src = `${SITE}/checkout/${sessionId}/embed.js`;
      probe.onload = probe.onerror = () => {
        const embed = probe.dataset.embedOrigin;
        probe.remove();
        if (embed && embed !== origin) {
          fail('embed_origin_mismatch', `The session's embed origin is ${embed}, not ${origin}.`, 0, true);
        }
      };
      document.head.append(probe);
    } catch {
      // A page enforcing Trusted Types refuses a plain script URL (a document without a head
      // fails too): the load time-out tells then.
    }
    // A session made elsewhere has its own locale, if any: the option is the page's ?lang= then.
    return load(sessionId + (o.locale ? '?lang=' + o.locale : ''));
  }

  // With a publishable key the script creates the embedded session itself
  // (docs/contract.md#opening-a-checkout).
  fetch(API + '/v1/checkout-sessions', {
    method: 'POST',
    credentials: 'omit',
    headers: { 'Content-Type': 'application/json', 'X-Service-Publishable-Key': o.publishableKey! },
    body: JSON.stringify({
      event_id: o.eventId,
      ui_mode: 'embedded',
      prefill: o.prefill,
      client_reference_id: o.clientReferenceId,
      locale: o.locale,
    }),
  }).then(
    (response) =>
      response
        .json()
        .catch(() => null)
        .then((body) => {
          const status = response.status;
          const id = body && body.data && body.data.id;
          if (!response.ok) {
            const code = body && isText(body.error_code) ? body.error_code : 'http_' + status;
            fail(
              code,
              (body && isText(body.message) && body.message) || `The checkout could not start (${code}).`,
              status,
            );
          } else if (typeof id === 'string' && SESSION_ID.test(id)) {
            if (current === checkout) load(id);
          } else {
            fail('invalid_session', 'The API returned no checkout session.', status);
          }
        }),
    () => fail('network_error', 'The API could not be reached.', 0),
  );
}

function close(): void {
  if (current) finish(current);
}

if (!window.ServiceCheckout) window.ServiceCheckout = Object.freeze({ open, close });
