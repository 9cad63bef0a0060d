// The start list of an event: bib ranges and progress per ticket type (a form for owners and
// admins), the "Assign bib numbers" button, answer totals per ticket type, and the runners a page
// at a time with a CSV download of the whole list.
import type {
  AnswerTotals,
  BibRange,
  RaceEvent,
  StartListRow,
  TypeProgress,
} from '../../startlists/index.ts';
import type { AdditionalQuestion } from '../../events/index.ts';
import { html, type Html } from '../../platform/index.ts';
import type { FieldErrors } from '../form-body.ts';
import { errorSummary, input } from './fields.ts';
import { csrfInput, page, type Viewer } from './layout.ts';
import { can } from '../../members/index.ts';
import { runnerExports } from './runner-exports.ts';

export interface RangeForm {
  /** ticket type id -> the values as typed */
  values: Map<string, { first: string; last: string }>;
  errors: FieldErrors;
}

export interface StartListView {
  viewer: Viewer;
  race: RaceEvent;
  canManage: boolean;
  ranges: BibRange[];
  progress: TypeProgress[];
  questions: AdditionalQuestion[];
  totals: AnswerTotals[];
  rows: StartListRow[];
  /** the query string of the next page's link, or null on the last page */
  nextPage: string | null;
  /**
   * a later page: only its runners (ranges, progress and totals are on the first page, so that
   * walking a long list does not count the whole field again on every page)
   */
  paged: boolean;
  notice: string | null;
  form: RangeForm | null;
}

const NOTICES: Record<string, string> = {
  ranges: 'The bib ranges were saved. Numbers already given stay as they are.',
};

export function startListNotice(done: string | undefined, given: string | undefined): string | null {
  if (done === 'assigned') {
    const n = Number(given);
    if (!Number.isInteger(n) || n < 0) return null;
    return n === 0
      ? 'No new numbers: every runner who can have one already has one.'
      : `Gave ${n} new bib ${n === 1 ? 'number' : 'numbers'}. Numbers given earlier did not change.`;
  }
  return NOTICES[done ?? ''] ?? null;
}

function eventDate(race: RaceEvent): string {
  return new Intl.DateTimeFormat('en-GB', {
    dateStyle: 'full',
    timeStyle: 'short',
    timeZone: race.event.timezone,
  }).format(race.event.startsAt);
}

function rangeText(range: BibRange | undefined): string {
  return range ? `${range.first}–${range.last}` : 'None';
}

/** What keeps runners of a ticket type without a number, in words; null when none are waiting. */
function shortfall(name: string, p: TypeProgress): string | null {
  const waiting = p.runners - p.numbered;
  if (waiting <= 0) return null;
  const who = `${waiting} ${waiting === 1 ? 'runner' : 'runners'} of ${name}`;
  if (p.free === null) return `${who} without a number: ${name} has no bib range. Set one, then assign.`;
  if (p.free < waiting)
    return `${who} without a number, and its range has ${p.free} left. Widen the range, then assign again.`;
  return `${who} without a number yet. Assign bib numbers to give them one.`;
}

function progressTable(view: StartListView): Html {
  const rangeOf = new Map(view.ranges.map((r) => [r.ticketTypeId, r]));
  return html`<div class="table-wrap" role="region" aria-label="Bib numbers per ticket type" tabindex="0">
    <table class="stack">
      <thead>
        <tr>
          <th scope="col">Ticket type</th>
          <th scope="col">Range</th>
          <th scope="col">Runners</th>
          <th scope="col">With a number</th>
          <th scope="col">Numbers left</th>
        </tr>
      </thead>
      <tbody>
        ${view.race.ticketTypes.map((t, i) => {
          const p = view.progress[i]!;
          return html`<tr>
            <td data-label="Ticket type">${t.name}</td>
            <td data-label="Range">${rangeText(rangeOf.get(t.id))}</td>
            <td data-label="Runners">${p.runners}</td>
            <td data-label="With a number">${p.numbered}</td>
            <td data-label="Numbers left">${p.free ?? '–'}</td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

function rangeForm(view: StartListView): Html {
  const form = view.form;
  const errors = form?.errors ?? {};
  const saved = new Map(view.ranges.map((r) => [r.ticketTypeId, r]));
  const valueOf = (id: string) =>
    form?.values.get(id) ?? {
      first: saved.has(id) ? String(saved.get(id)!.first) : '',
      last: saved.has(id) ? String(saved.get(id)!.last) : '',
    };
  return html`<h3>Bib ranges</h3>
    <form method="post" action="/events/${view.race.event.id}/bib-ranges" novalidate class="panel">
      ${csrfInput(view.viewer.current.session.csrfToken)}
      <p class="hint">
        Numbers from 1 to 999999; ranges of one event may not overlap. Leave both empty for no range. Changing
        a range never changes a number already given.
      </p>
      ${view.race.ticketTypes.map((t) => {
        const value = valueOf(t.id);
        return html`<fieldset>
          <legend>${t.name}</legend>
          ${input({ name: `first_${t.id}`, label: 'First number', value: value.first, errors })}
          ${input({ name: `last_${t.id}`, label: 'Last number', value: value.last, errors })}
        </fieldset>`;
      })}
      <button type="submit" class="primary">Save ranges</button>
    </form>`;
}

function assignForm(view: StartListView): Html {
  return html`<h3>Assign bib numbers</h3>
    <form method="post" action="/events/${view.race.event.id}/bibs/assign" class="panel">
      ${csrfInput(view.viewer.current.session.csrfToken)}
      <p class="hint" id="assign-hint">
        Gives a number from its ticket type's range to each paid runner without one, in the order they
        registered. Numbers already given never change, so you can assign again after new registrations.
      </p>
      <button type="submit" class="primary" aria-describedby="assign-hint">Assign bib numbers</button>
    </form>`;
}

function totalsSection(view: StartListView): Html {
  if (view.totals.length === 0) return html``;
  const types = view.race.ticketTypes;
  return html`<h2>Totals</h2>
    ${view.totals.map((totals) => {
      const question = view.questions.find((q) => q.key === totals.questionKey)!;
      const seen = new Set<string>();
      for (const perType of totals.counts.values()) for (const answer of perType.keys()) seen.add(answer);
      // the question's options in their order, then any other answer given (an old option)
      const answers = [...question.options, ...[...seen].filter((a) => !question.options.includes(a)).sort()];
      const count = (typeId: string, answer: string) => totals.counts.get(typeId)?.get(answer) ?? 0;
      return html`<h3>${question.label}</h3>
        <div class="table-wrap" role="region" aria-label="${question.label} per ticket type" tabindex="0">
          <table>
            <thead>
              <tr>
                <th scope="col">${question.label}</th>
                ${types.map((t) => html`<th scope="col">${t.name}</th>`)}
                <th scope="col">All</th>
              </tr>
            </thead>
            <tbody>
              ${answers.map(
                (answer) =>
                  html`<tr>
                    <th scope="row">
                      ${answer === '' ? html`<span class="muted">No answer</span>` : answer}
                    </th>
                    ${types.map((t) => html`<td>${count(t.id, answer)}</td>`)}
                    <td>${types.reduce((sum, t) => sum + count(t.id, answer), 0)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>`;
    })}`;
}

function runnerRow(view: StartListView, row: StartListRow): Html {
  return html`<tr>
    <td data-label="Bib">${row.bib ?? html`<span class="muted">None</span>`}</td>
    <td data-label="Name">${row.participantName}</td>
    <td data-label="Ticket type">${row.ticketTypeName}</td>
    <td data-label="Age">${row.age ?? html`<span class="muted">–</span>`}</td>
    ${view.questions.map(
      (q) =>
        html`<td data-label="${q.label}">${row.answers[q.key] || html`<span class="muted">–</span>`}</td>`,
    )}
    <td data-label="Order"><code>${row.orderCode}</code></td>
  </tr>`;
}

function runnersSection(view: StartListView): Html {
  const base = `/events/${view.race.event.id}/start-list`;
  const total = view.progress.reduce((sum, p) => sum + p.runners, 0);
  const heading = view.paged ? 'Runners (continued)' : `Runners (${total})`;
  const table =
    view.rows.length === 0
      ? html`<p>No paid registrations yet.</p>`
      : html`<div class="table-wrap" role="region" aria-label="Runners by ticket type and bib" tabindex="0">
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Bib</th>
                <th scope="col">Name</th>
                <th scope="col">Ticket type</th>
                <th scope="col">Age</th>
                ${view.questions.map((q) => html`<th scope="col">${q.label}</th>`)}
                <th scope="col">Order</th>
              </tr>
            </thead>
            <tbody>
              ${view.rows.map((row) => runnerRow(view, row))}
            </tbody>
          </table>
        </div>`;
  const pages =
    view.paged || view.nextPage
      ? html`<nav aria-label="Start list pages" class="actions">
          ${view.paged ? html`<a href="${base}#runners">First page</a>` : ''}
          ${view.nextPage ? html`<a href="${base}?${view.nextPage}#runners">Next page</a>` : ''}
        </nav>`
      : '';
  return html`<h2 id="runners">${heading}</h2>
    <p class="muted">
      Paid registrations, by ticket type, then bib number; runners without a number follow by name. Age is on
      race day.
    </p>
    ${
      can(view.viewer.current.role, 'exports')
        ? html`<p class="no-print">
            <a class="button" href="${base}.csv" download>Download start list (CSV)</a>
          </p>`
        : ''
    }
    ${
      view.paged || view.nextPage
        ? html`<p class="hint">
            A printed page holds this page's runners only: the pickup list prints every runner.
          </p>`
        : ''
    }
    ${table} ${pages}`;
}

export function renderStartList(view: StartListView): string {
  const problems = (view.paged ? [] : view.race.ticketTypes)
    .map((t, i) => shortfall(t.name, view.progress[i]!))
    .filter((p): p is string => p !== null);
  const errors = view.form?.errors ?? {};
  const main = html`${errorSummary(errors)}
    <p class="no-print"><a href="/events">All events</a></p>
    <h1>Start list: ${view.race.event.name}</h1>
    <p class="muted">${eventDate(view.race)} (${view.race.event.timezone})</p>
    ${view.notice ? html`<p class="notice good" role="status">${view.notice}</p>` : ''}
    ${
      problems.length > 0
        ? html`<div class="notice warn">
            <ul>
              ${problems.map((p) => html`<li>${p}</li>`)}
            </ul>
          </div>`
        : ''
    }
    ${
      view.paged
        ? ''
        : html`<h2>Bib numbers</h2>
            ${progressTable(view)}
            ${view.canManage ? html`<div class="no-print">${assignForm(view)} ${rangeForm(view)}</div>` : ''}
            ${totalsSection(view)}`
    }
    ${runnersSection(view)} ${view.paged ? '' : runnerExports(view.viewer, view.race.event.id)}`;
  return page({
    title: `Start list: ${view.race.event.name}`,
    main,
    viewer: view.viewer,
    hasErrors: Object.keys(errors).length > 0,
  });
}
