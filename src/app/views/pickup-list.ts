// The pickup list: every paid runner of an event to hand race packs to, a section per ticket type
// (each printed on a page of its own), one line per runner with their bib, name, the answers that
// decide what they collect (T-shirt size) and an empty box to tick. Sorted by bib or by name.
import type { RaceEvent, StartListRow } from '../../startlists/index.ts';
import { attr, html, type Html } from '../../platform/index.ts';
import { page, type Viewer } from './layout.ts';

type PickupOrder = 'bib' | 'name';

export interface PickupListView {
  viewer: Viewer;
  race: RaceEvent;
  order: PickupOrder;
  /** ticket type id -> its runners in the list's order */
  runners: Map<string, StartListRow[]>;
}

function orderLink(view: PickupListView, order: PickupOrder, label: string): Html {
  const current = view.order === order;
  return html`<a
    href="/events/${view.race.event.id}/pickup-list?order=${order}"
    ${attr('aria-current', current ? 'page' : null)}
    >${label}</a
  >`;
}

function section(view: PickupListView, name: string, rows: StartListRow[]): Html {
  // only the questions with a fixed list of options: what a runner collects, not free text
  const questions = view.race.event.additionalQuestions.filter((q) => q.type === 'select');
  const count = `${rows.length} ${rows.length === 1 ? 'runner' : 'runners'}`;
  return html`<section class="print-page">
    <h2>${name} <span class="muted">(${count})</span></h2>
    ${
      rows.length === 0
        ? html`<p>No paid runners.</p>`
        : html`<div class="table-wrap" role="region" aria-label="${name}: runners" tabindex="0">
            <table class="lines">
              <thead>
                <tr>
                  <th scope="col">Bib</th>
                  <th scope="col">Name</th>
                  ${questions.map((q) => html`<th scope="col">${q.label}</th>`)}
                  <th scope="col">Order</th>
                  <th scope="col">Picked up</th>
                </tr>
              </thead>
              <tbody>
                ${rows.map(
                  (r) =>
                    html`<tr>
                      <td>${r.bib ?? html`<span class="muted">None</span>`}</td>
                      <td>${r.participantName}</td>
                      ${questions.map((q) => html`<td>${r.answers[q.key] || html`<span class="muted">–</span>`}</td>`)}
                      <td><code>${r.orderCode}</code></td>
                      <td><span class="tick-box" aria-hidden="true"></span></td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
  </section>`;
}

export function renderPickupList(view: PickupListView): string {
  const { event } = view.race;
  const main = html`<p class="no-print">
      <a href="/events/${event.id}">${event.name}</a> ·
      <a href="/events/${event.id}/start-list">Start list</a>
    </p>
    <h1>Pickup list: ${event.name}</h1>
    <p class="no-print">
      Paid runners, a section per ticket
      type${view.order === 'bib' ? ', by bib number; runners without a number follow by name' : ', by name'}.
      Print it from your browser: each ticket type starts on a new page, one line per runner.
    </p>
    <nav class="actions" aria-label="Sort the pickup list">
      <span>Sort by:</span> ${orderLink(view, 'bib', 'Bib number')} ${orderLink(view, 'name', 'Name')}
    </nav>
    ${view.race.ticketTypes.map((t) => section(view, t.name, view.runners.get(t.id) ?? []))}`;
  return page({ title: `Pickup list: ${event.name}`, main, viewer: view.viewer, section: 'events' });
}
