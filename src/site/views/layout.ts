// The page shell every checkout page shares: head with our one stylesheet and one deferred
// script (the form's, or the pages' after it), the language switch, the event header, the main region and the footer. The page
// script's words come with the page, as a JSON data block in the buyer's language.
import type { CheckoutSessionRow } from '../../checkout/index.ts';
import type { EventWithTickets } from '../../events/index.ts';
import { CHECKOUT_SCRIPT, CHECKOUT_STYLES, PAGES_SCRIPT, SITE_ICON } from '../assets.ts';
import { CHECKOUT_CSS } from '../client/checkout.css.ts';
import { formatDateTime, zoneLabel } from '../format.ts';
import { INTL_LOCALES, LOCALE_NAMES, type Locale } from '../messages/catalog.ts';
import { fill } from '../messages/fill.ts';
import { locale, msg } from '../messages/current.ts';
import type { EventMethods } from '../event-methods.ts';
import { noEventOffer, offerFills, offerOf, pageOffer } from '../offer-words.ts';
import { attr, html, raw, type Html } from '../../platform/index.ts';

export interface LayoutOptions {
  title: string;
  main: Html;
  session?: CheckoutSessionRow | null;
  found?: EventWithTickets | null;
  /** extra elements for <head> (a <noscript> refresh) */
  head?: Html;
  /** the event header as one line (after the form's first step, and on the pages after the form) */
  compact?: boolean;
  /** the page's path under the session, for the language switch ('' for the form, '/pay') */
  page?: string;
  /** the id of the page's form whose typed values the language switch carries over */
  languageForm?: string;
  /** above the event header: the organizer app's preview says there that nothing is sold */
  banner?: Html;
  /**
   * the stylesheet in the page, not linked: the 503 page's (a shedding service refuses the
   * stylesheet's request too, and a buyer new to the checkout has none cached)
   */
  inlineStyles?: boolean;
  /** the form's script (the form, the 503 page); the other pages get the one of the pages after it */
  form?: boolean;
}

/** The stylesheet as the page carries it inline (its CSP allows exactly this text). */
export const INLINE_STYLES = CHECKOUT_CSS.trim();

/** Only https covers are shown (the CSP allows https: images); anything else is left out. */
function coverUrl(cover: string): string | null {
  return /^https:\/\/[^\s"'<>]+$/i.test(cover) ? cover : null;
}

/** The event's name, start and place; the ticket page leaves the cover out (it prints). */
export function eventHeader(found: EventWithTickets, { withCover = true } = {}): Html {
  const { event } = found;
  const cover = withCover ? coverUrl(event.cover) : null;
  return html`<header class="event">
    ${cover ? html`<img class="cover" src="${cover}" alt="" width="640" height="280" decoding="async" />` : ''}
    <h1>${event.name}</h1>
    <p class="meta">
      <time datetime="${event.startsAt.toISOString()}"
        >${formatDateTime(event.startsAt, event.timezone, INTL_LOCALES[locale()])}</time
      >
      <span class="muted">(${zoneLabel(event.timezone, event.startsAt, msg().common.zoneTime)})</span>
    </p>
    ${event.venue ? html`<p class="meta">${event.venue}</p>` : ''}
  </header>`;
}

/**
 * The language switch, at the top of every page of the session. On the form it is a submit button
 * of the form (its own action and ?lang=), so the page comes back in the other language at the same
 * step with everything typed; elsewhere a link to the same page. The choice then stays on the
 * checkout's links.
 */
function languageSwitch(sessionId: string, page: string, form: string | undefined): Html {
  const others = (Object.keys(LOCALE_NAMES) as Locale[]).filter((l) => l !== locale());
  const choice = (l: Locale) =>
    form
      ? html`<button
          type="submit"
          form="${form}"
          formaction="/checkout/${sessionId}/order?lang=${l}"
          formnovalidate
          name="action"
          value="language"
          class="link"
          lang="${l}"
        >
          ${LOCALE_NAMES[l]}
        </button>`
      : html`<a
          href="/checkout/${sessionId}${page}${page.includes('?') ? '&' : '?'}lang=${l}"
          hreflang="${l}"
          lang="${l}"
          >${LOCALE_NAMES[l]}</a
        >`;
  return html`<nav class="topbar" aria-label="${msg().common.language}">${others.map(choice)}</nav>`;
}

function footer(found: EventWithTickets | null | undefined): Html {
  const m = msg().common;
  if (!found) return html`<footer><p>${m.secureCheckout}</p></footer>`;
  const organizer = found.event.organizerName || found.organization.name;
  const support = found.event.supportEmail || found.organization.supportEmail;
  return html`<footer>
    <p>${m.secureCheckoutFor(organizer)}</p>
    ${support ? html`<p>${m.questions} <a href="mailto:${support}">${support}</a></p>` : ''}
  </footer>`;
}

/** A JSON data block: it runs nothing, so the CSP allows it. */
function dataBlock(id: string, data: object): Html {
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  return html`<script type="application/json" id="${id}">
    ${raw(json)}
  </script>`;
}

/**
 * The page script's words, as data (a JSON block runs nothing, so the CSP allows it), with the
 * event's networks and country filled in ({networks}, {example}...), so the script need not list them; and the event's methods (names, networks' prefixes).
 */
function scriptMessages(offer: EventMethods): Html {
  const fills = offerFills(offer);
  const words = Object.fromEntries(
    Object.entries(msg().script).map(([key, text]) => [
      key,
      typeof text === 'string' ? fill(text, fills) : text,
    ]),
  );
  return html`${dataBlock('checkout-messages', words)} ${dataBlock('checkout-offer', pageOffer(offer))}`;
}

/**
 * An embedded checkout's ×, at the top right of the page: the script shows it inside checkout.js's
 * frame only (embed-messages.ts), where it closes the modal as Esc does.
 */
function closeControl(): Html {
  return html`<button
    type="button"
    class="close-x"
    data-close
    hidden
    aria-label="${msg().embed.closeCheckout}"
  >
    ×
  </button>`;
}

export function layout(options: LayoutOptions): Html {
  const session = options.session ?? null;
  const embedded = session?.uiMode === 'embedded';
  // A page of no event (an unknown session) offers nothing: Uganda's words stand in.
  const offer = options.found ? offerOf(options.found) : noEventOffer();
  return html`<!doctype html>
    <html lang="${locale()}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${options.title}</title>
        <link rel="icon" href="${SITE_ICON.path}" type="image/svg+xml" />
        ${
          options.inlineStyles
            ? // A plain string: the CSP allows exactly this text, and no formatter may touch it.
              raw(`<style>${INLINE_STYLES}</style>`)
            : html`<link rel="stylesheet" href="${CHECKOUT_STYLES.path}" />`
        }
        <script src="${(options.form ? CHECKOUT_SCRIPT : PAGES_SCRIPT).path}" defer></script>
        ${scriptMessages(offer)} ${options.head ?? ''}
      </head>
      <body
        ${attr('class', options.compact ? 'compact' : null)}
        data-mode="${embedded ? 'embedded' : 'redirect'}"
        ${attr('data-embed-origin', embedded ? session?.embedOrigin : null)}${attr('data-session', session?.id)}
        data-currency="${offer.currency}"
        data-methods="${offer.methods.map((m) => m.key).join(' ')}"
      >
        <div class="page">
          ${closeControl()}
          ${session ? languageSwitch(session.id, options.page ?? '', options.languageForm) : ''}
          ${options.banner ?? ''} ${options.found ? eventHeader(options.found) : ''}
          <main id="main">${options.main}</main>
          ${footer(options.found)}
        </div>
      </body>
    </html> `;
}
