// The organization's events, each with a link to its page and its start list, and a "New event"
// link for the members who may create one.
import type { EventRow } from '../../events/index.ts';
import { html } from '../../platform/index.ts';
import { page, type Viewer } from './layout.ts';

function dateOf(event: EventRow): string {
  return new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeZone: event.timezone }).format(
    event.startsAt,
  );
}

export function renderEvents(view: { viewer: Viewer; events: EventRow[]; canCreate: boolean }): string {
  const main = html`<h1>Events</h1>
    ${view.canCreate ? html`<p><a href="/events/new" class="button">New event</a></p>` : ''}
    ${
      view.events.length === 0
        ? html`<p>No events yet.</p>`
        : html`<ul class="entries">
            ${view.events.map(
              (e) =>
                html`<li>
                  <span
                    ><a href="/events/${e.id}"><strong>${e.name}</strong></a>
                    <span class="muted">${dateOf(e)} · ${e.status}</span></span
                  >
                  <a href="/events/${e.id}/start-list" aria-label="Start list of ${e.name}">Start list</a>
                </li>`,
            )}
          </ul>`
    }`;
  return page({ title: 'Events', main, viewer: view.viewer, section: 'events' });
}
