// The overlay of checkout.js: a modal dialog around the checkout iframe
// (docs/contract.md#behaviour-of-the-modal). It keeps focus inside, blocks page scroll, returns focus on
// close, fills the viewport on small screens and is a centred panel on larger ones. Its own × shows
// only over the spinner or a failure: once ready, the checkout page has one in its header. A
// checkout closed while a payment prompt is out is only hidden: its frame keeps running.
//
// Styles are set through the CSSOM (element.style), never with a <style> element or a style
// attribute, and the spinner turns with the Web Animations API: a host page whose
// Content-Security-Policy allows nothing for styles (item 6 lists only script-src, frame-src and
// connect-src) still shows the modal as designed. No innerHTML anywhere.
import type { embedEn } from '../../src/site/messages/embed.en.ts';

export interface Modal {
  /** puts the checkout page in the (still hidden) frame */
  load(url: string): void;
  /** the page said service:ready: the spinner and its × go, the frame shows and takes focus */
  ready(): void;
  /**
   * replaces the frame or spinner with the buyer's words (never the developer's message of
   * onError); with `again`, a failure the next try may not meet, and a button that runs it
   */
  fail(again: false | (() => void)): void;
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

/** The modal's own words in the buyer's language: checkout.ts picks them from the page catalog. */
export type Words = typeof embedEn;

const FULL = 'width:100%;height:100%;';
const PANEL = 'position:relative;background:#fff;overflow:hidden;';
const LARGE =
  'width:min(480px,100% - 48px);height:min(760px,100% - 48px);border-radius:12px;box-shadow:0 24px 64px rgba(0,0,0,.35)';

function make<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  css: string,
  parent?: Node,
  attributes: Record<string, string> = {},
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  element.style.cssText = css;
  for (const name in attributes) element.setAttribute(name, attributes[name]!);
  if (parent) parent.appendChild(element);
  return element;
}

/**
 * Builds and shows the overlay with its spinner at once; `dismiss` runs on Esc and on the close
 * button, which shows only until the checkout page is ready (the page has its own in its header).
 */
export function createModal(dismiss: () => void, words: Words): Modal {
  const doc = document;
  const root = doc.documentElement;
  const body = doc.body || root;
  let returnTo: HTMLElement | null;
  let overflow: string[];
  const small = matchMedia('(max-width:640px)');

  const overlay = make(
    'div',
    'position:fixed;top:0;left:0;' +
      FULL +
      'z-index:2147483647;align-items:center;justify-content:center;background:rgba(17,24,39,.6)',
  );
  // Focus sentinels on both sides of the dialog: Tab past either end lands on one and is sent back in.
  const first = make('div', '', overlay);
  const panel = make('div', '', overlay, {
    role: 'dialog',
    'aria-modal': 'true',
    'aria-label': words.checkoutLabel,
  });
  const last = make('div', '', overlay);
  first.tabIndex = last.tabIndex = 0;

  const frame = make('iframe', 'display:block;' + FULL + 'border:0;visibility:hidden', panel);
  frame.title = words.checkoutLabel;
  frame.allow = 'payment';

  const status = make(
    'div',
    'position:absolute;top:0;left:0;right:0;bottom:0;display:flex;flex-direction:column;align-items:center;justify-content:center;gap:16px;padding:24px;background:#fff;color:#111827;font:16px/1.5 system-ui,sans-serif;text-align:center',
    panel,
    { role: 'status' },
  );
  const spinner = make(
    'div',
    'width:28px;height:28px;border-radius:50%;border:4px solid #e5e7eb;border-top-color:#111827',
    status,
  );
  if (spinner.animate && !matchMedia('(prefers-reduced-motion:reduce)').matches) {
    spinner.animate([{ transform: 'rotate(0)' }, { transform: 'rotate(1turn)' }], {
      duration: 800,
      iterations: Infinity,
    });
  }
  const text = make('p', 'margin:0', status);
  text.textContent = words.loadingCheckout;
  // After the status, so it lies over it; outside it, so the live region does not read its name.
  const closeButton = make(
    'button',
    'position:absolute;top:0;right:0;width:48px;height:48px;border:0;background:none;color:#374151;font:28px/1 sans-serif;cursor:pointer',
    panel,
    { 'aria-label': words.closeCheckout },
  );
  // Never inside a form (the overlay is the body's child): the default type is harmless.
  closeButton.textContent = '\u00d7';
  closeButton.onclick = dismiss;

  let shown = false;
  const layout = () => (panel.style.cssText = PANEL + (small.matches ? FULL : LARGE));
  // Kept for the modal's life: laying out a hidden panel is harmless.
  small.onchange = layout;
  const onFocus = (event: FocusEvent) => {
    const target = event.target as Node;
    if (!panel.contains(target)) (shown ? frame : closeButton).focus();
  };
  const onKey = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      dismiss();
    }
  };
  /** Focus and Esc are watched on the whole page while the overlay shows ('add' or 'remove'). */
  const watch = (verb: 'add' | 'remove') => {
    doc[`${verb}EventListener`]('focusin', onFocus as EventListener, true);
    doc[`${verb}EventListener`]('keydown', onKey as EventListener, true);
  };

  // Shown at open, and again when a checkout closed mid-payment comes back on its confirmation.
  const show = () => {
    returnTo = doc.activeElement as HTMLElement | null;
    overflow = [root.style.overflow, body.style.overflow];
    layout();
    watch('add');
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
    // On the first service:ready only: the page moves focus within itself from then on.
    ready() {
      if (shown) return;
      shown = true;
      status.remove();
      closeButton.remove();
      frame.style.visibility = 'visible';
      frame.focus();
    },
    fail(again) {
      frame.remove();
      spinner.remove();
      status.setAttribute('role', 'alert');
      text.textContent = words.couldNotOpen;
      if (again) {
        // Outside any form: a plain button, no type needed.
        const button = make(
          'button',
          'font:600 16px sans-serif;padding:14px 24px;border:0;border-radius:6px;background:#1d4ed8;color:#fff',
          status,
        );
        button.textContent = words.tryAgainLabel;
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
      watch('remove');
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
