// The organizer's words on the checkout preview (routes/event-preview.ts): the banner above the
// checkout and the note where a buyer's order would be placed. The page under them is the hosted
// checkout's own; these are in English, the app's language, whatever language the checkout shows.
import type { EventRow } from '../../events/index.ts';
import { html, type Html } from '../../platform/index.ts';
import { formatDateTime, LOCALE_NAMES, type Locale } from '../../site/index.ts';

export const PREVIEW_TITLE_PREFIX = 'Preview: ';

/**
 * The banner: the checkout's own notice style (the only stylesheet of the page), a region of its
 * own so that a screen reader meets it first.
 */
export function previewBanner(options: {
  event: EventRow;
  /** when sales open, if the preview shows the checkout as on that day */
  shownAt: Date | null;
  locale: Locale;
}): Html {
  const { event, shownAt } = options;
  const others = (Object.keys(LOCALE_NAMES) as Locale[]).filter((l) => l !== options.locale);
  return html`<section class="notice preview" aria-label="Preview" lang="en">
    <p>
      <strong>Preview: nothing here is sold.</strong> This is the checkout of this event as a buyer sees it.
      Its buttons only show the next step: no order, hold or payment is made.
    </p>
    ${
      shownAt
        ? html`<p>
            No ticket is on sale yet: shown as on ${formatDateTime(shownAt, event.timezone)}, when sales open.
          </p>`
        : ''
    }
    <p>
      <a href="/events/${event.id}">Back to the event</a>
      ${others.map(
        (l) =>
          html` ·
            <a href="/events/${event.id}/preview?lang=${l}" hreflang="${l}"
              >See it in <span lang="${l}">${LOCALE_NAMES[l]}</span></a
            >`,
      )}
    </p>
  </section>`;
}

/** Where the real checkout would send the prompt (or confirm a free registration). */
export function placedNote(): Html {
  return html`<span lang="en"
    >Preview: here the buyer's order would be placed and the payment prompt sent to their phone. Nothing was
    held, sent or sold.</span
  >`;
}
