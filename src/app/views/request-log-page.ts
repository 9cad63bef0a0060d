// The API request log page: a GET form choosing the client (no script needed), then the last
// requests newest first. Nothing on it is secret: ids, paths without query strings, codes.
import type { ApiClientRow, RequestLogRow } from '../../auth/index.ts';
import { attr, html, type Html } from '../../platform/index.ts';
import { formatTime } from './fields.ts';
import { page, type Viewer } from './layout.ts';

export interface RequestLogView {
  viewer: Viewer;
  clients: ApiClientRow[];
  /** the client chosen in the filter; undefined for all */
  clientId: string | undefined;
  rows: RequestLogRow[];
}

/** To the second: requests come many a minute. */

function clientFilter(clients: ApiClientRow[], chosen: string | undefined): Html {
  return html`<form method="get" action="/developers/requests" class="inline">
    <label for="f-client">Client</label>
    <select id="f-client" name="client">
      <option value="" ${attr('selected', chosen === undefined)}>All clients</option>
      ${clients.map(
        (c) =>
          html`<option value="${c.id}" ${attr('selected', c.id === chosen)}>
            ${c.name}${c.revokedAt ? ' (revoked)' : ''}
          </option>`,
      )}
    </select>
    <button type="submit">Show</button>
  </form>`;
}

function requestRow(row: RequestLogRow, names: Map<string, string>): Html {
  return html`<tr>
    <td data-label="Time" class="nowrap">
      <time datetime="${row.at.toISOString()}">${formatTime(row.at, { seconds: true })}</time>
    </td>
    <td data-label="Client">${names.get(row.clientId) ?? row.clientId}</td>
    <td data-label="Method">${row.method}</td>
    <td data-label="Path"><code>${row.path}</code></td>
    <td data-label="Status">${row.status}</td>
    <td data-label="Error code">
      ${row.errorCode ? html`<code>${row.errorCode}</code>` : html`<span class="muted">none</span>`}
    </td>
    <td data-label="Request id"><code>${row.requestId}</code></td>
  </tr>`;
}

export function renderRequestLog(view: RequestLogView): string {
  const names = new Map(view.clients.map((c) => [c.id, c.name]));
  const empty =
    view.clientId === undefined ? 'No API requests yet.' : 'No API requests from this client yet.';
  const main = html`<p><a href="/developers">Developer settings</a></p>
    <h1>API requests</h1>
    <p>
      The requests made with your organization's API clients, newest first. Only the last 100 are kept, and a
      request can take a few seconds to appear.
    </p>
    ${clientFilter(view.clients, view.clientId)}
    ${
      view.rows.length === 0
        ? html`<p>${empty}</p>`
        : html`<div class="table-wrap" role="region" aria-label="API requests, newest first" tabindex="0">
            <table class="stack">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Client</th>
                  <th scope="col">Method</th>
                  <th scope="col">Path</th>
                  <th scope="col">Status</th>
                  <th scope="col">Error code</th>
                  <th scope="col">Request id</th>
                </tr>
              </thead>
              <tbody>
                ${view.rows.map((row) => requestRow(row, names))}
              </tbody>
            </table>
          </div>`
    }`;
  return page({ title: 'API requests', main, viewer: view.viewer, section: 'developers' });
}
