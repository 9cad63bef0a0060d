// The overlay of checkout.js: a modal dialog around the checkout iframe
// (docs/contract.md#behaviour-of-the-modal). It keeps focus inside, blocks page scroll, returns focus on
// close, fills the viewport on small screens and is a centred panel on larger ones. A checkout
// closed while a payment prompt is out is only hidden: its frame keeps running and can show again.
//
// Styles are set through the CSSOM (element.style), never with a <style> element or a style
// attribute, and the spinner turns with the Web Animations API: a host page whose
// Content-Security-Policy allows nothing for styles (item 6 lists only script-src, frame-src and
// connect-src) still shows the modal as designed. No innerHTML anywhere.

export interface Modal {
  /** puts the checkout page in the (still hidden) frame */
  load(url: string): void;
  /** the page said service:ready: the spinner goes, the frame shows */
  ready(): void;
  /**
   * replaces the frame or spinner with `message`; with `again`, a failure the next try may not
   * meet: the buyer's own words instead, and a button that runs it
   */
  fail(message: string, again: false | (() => void)): void;
  /** whether a message came from this modal's frame */
  isFrame(source: MessageEventSource | null): boolean;
  /** asks the checkout page to confirm closing (service:confirm-close), focus on the frame */
  ask(site: string): void;
  /** hides the overlay, restores scroll and focus; the frame stays loaded and keeps running */
  hide(): void;
  /** shows the hidden overlay again, focus on the frame */
  show(): void;
  /** takes the hidden overlay away */
  remove(): void;
}

const BAR_HEIGHT = 48;
/** A checkout that could not open, and its button, in the browser's language (English or Swahili). */
const AGAIN = /^sw\b/i.test(navigator.language)
  ? ['Malipo hayakufunguka. Hakuna kilichotumwa kwenye simu yako.', 'Jaribu tena']
  : ['The checkout could not open. Nothing was sent to your phone.', 'Try again'];
const PANEL =
  'position:relative;display:flex;flex-direction:column;background:#fff;overflow:hidden;box-sizing:border-box;';
const SMALL = 'width:100%;height:100%';
const LARGE =
  'width:min(480px,100% - 48px);height:min(760px,100% - 48px);border-radius:12px;box-shadow:0 24px 64px rgba(0,0,0,.35)';

function make<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  css: string,
  parent?: Node,
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  element.style.cssText = css;
  if (parent) parent.appendChild(element);
  return element;
}

/** Builds and shows the overlay with its spinner at once; `dismiss` runs on Esc and the close button. */
export function createModal(dismiss: () => void): Modal {
  const doc = document;
  const root = doc.documentElement;
  const body = doc.body || root;
  let returnTo: HTMLElement | null;
  let overflow: string[];
  const small = matchMedia('(max-width: 640px)');

  const overlay = make(
    'div',
    'position:fixed;top:0;left:0;width:100%;height:100%;z-index:2147483647;align-items:center;justify-content:center;background:rgba(17,24,39,.6)',
  );
  // Focus sentinels on both sides of the dialog: Tab past either end lands on one and is sent back in.
  const first = make('div', '', overlay);
  const panel = make('div', '', overlay);
  const last = make('div', '', overlay);
  first.tabIndex = last.tabIndex = 0;
  panel.setAttribute('role', 'dialog');
  panel.setAttribute('aria-modal', 'true');
  panel.setAttribute('aria-label', 'Checkout');

  const bar = make('div', `display:flex;justify-content:flex-end;flex:none;height:${BAR_HEIGHT}px`, panel);
  const closeButton = make(
    'button',
    'width:48px;height:48px;border:0;padding:0;background:none;color:#374151;font:28px/1 sans-serif;cursor:pointer',
    bar,
  );
  closeButton.type = 'button';
  closeButton.textContent = '\u00d7';
  closeButton.setAttribute('aria-label', 'Close checkout');
  closeButton.onclick = dismiss;

  const frame = make('iframe', 'flex:1;width:100%;border:0;visibility:hidden', panel);
  frame.title = 'Checkout';
  frame.allow = 'payment';

  const status = make(
    'div',
    `position:absolute;top:${BAR_HEIGHT}px;left:0;right:0;bottom:0;display:flex;flex-direction:column;align-items:center;justify-content:center;gap:16px;padding:24px;background:#fff;color:#111827;font:16px/1.5 system-ui,sans-serif;text-align:center`,
    panel,
  );
  status.setAttribute('role', 'status');
  const spinner = make(
    'div',
    'width:36px;height:36px;box-sizing:border-box;border-radius:50%;border:4px solid #e5e7eb;border-top-color:#111827',
    status,
  );
  if (spinner.animate && !matchMedia('(prefers-reduced-motion: reduce)').matches) {
    spinner.animate([{ transform: 'rotate(0)' }, { transform: 'rotate(1turn)' }], {
      duration: 800,
      iterations: Infinity,
    });
  }
  const text = make('p', 'margin:0', status);
  text.textContent = 'Loading checkout\u2026';

  let shown = false;
  const layout = () => (panel.style.cssText = PANEL + (small.matches ? SMALL : LARGE));
  const onFocus = (event: FocusEvent) => {
    const target = event.target as Node;
    if (!panel.contains(target)) (target === first && shown ? frame : closeButton).focus();
  };
  const onKey = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      dismiss();
    }
  };

  // Shown at open, and again when a checkout closed mid-payment comes back on its confirmation.
  const show = () => {
    returnTo = doc.activeElement as HTMLElement | null;
    overflow = [root.style.overflow, body.style.overflow];
    layout();
    small.addEventListener('change', layout);
    doc.addEventListener('focusin', onFocus, true);
    doc.addEventListener('keydown', onKey, true);
    root.style.overflow = body.style.overflow = 'hidden';
    overlay.style.display = 'flex';
  };

  show();
  body.appendChild(overlay);
  closeButton.focus();

  return {
    load(url) {
      frame.src = url;
    },
    ready() {
      shown = true;
      status.remove();
      frame.style.visibility = 'visible';
    },
    fail(message, again) {
      shown = false;
      frame.remove();
      spinner.remove();
      status.setAttribute('role', 'alert');
      text.textContent = again ? AGAIN[0]! : message;
      panel.appendChild(status);
      if (again) {
        // Outside any form: a plain button, no type needed.
        const button = make(
          'button',
          'font:600 16px sans-serif;padding:14px 24px;border:0;border-radius:6px;background:#1d4ed8;color:#fff',
          status,
        );
        button.textContent = AGAIN[1]!;
        button.onclick = again;
        button.focus();
      }
    },
    isFrame(source) {
      return !!source && source === frame.contentWindow;
    },
    ask(site) {
      frame.focus();
      frame.contentWindow!.postMessage({ type: 'service:confirm-close' }, site);
    },
    // display:none, not removed: a removed iframe would stop the checkout page watching the order.
    hide() {
      small.removeEventListener('change', layout);
      doc.removeEventListener('focusin', onFocus, true);
      doc.removeEventListener('keydown', onKey, true);
      overlay.style.display = 'none';
      root.style.overflow = overflow[0]!;
      body.style.overflow = overflow[1]!;
      if (returnTo && returnTo.focus) returnTo.focus();
    },
    show() {
      show();
      frame.focus();
    },
    remove() {
      overlay.remove();
    },
  };
}
