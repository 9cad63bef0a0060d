// The organization's events, each with a link to its start list: the way in to start lists
// until the app has event pages of its own.
import type { EventRow } from '../../events/events.ts';
import { html } from '../../platform/html.ts';
import { page, type Viewer } from './layout.ts';

function dateOf(event: EventRow): string {
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: event.timezone }).format(
    event.startsAt,
  );
}

export function renderEvents(view: { viewer: Viewer; events: EventRow[] }): string {
  const main = html`<h1>Events</h1>
    ${
      view.events.length === 0
        ? html`<p>No events yet.</p>`
        : html`<ul class="entries">
            ${view.events.map(
              (e) =>
                html`<li>
                  <span><strong>${e.name}</strong> <span class="muted">${dateOf(e)}</span></span>
                  <a href="/events/${e.id}/start-list" aria-label="Start list of ${e.name}">Start list</a>
                </li>`,
            )}
          </ul>`
    }`;
  return page({ title: 'Events', main, viewer: view.viewer });
}
