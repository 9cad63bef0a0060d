// The "Runners" block of an event's page and its start list: what the exports hold, and the links
// to download them or print the pickup list, for roles that may export (members/roles.ts).
import { can } from '../../members/index.ts';
import { html, type Html } from '../../platform/index.ts';
import type { Viewer } from './layout.ts';

export function runnerExports(viewer: Viewer, eventId: string): Html {
  const { role } = viewer.current;
  if (!can(role, 'exports')) return html``;
  const contacts = can(role, 'buyer_contacts')
    ? "the buyer's name, email and phone"
    : "the buyer's name (your role does not see buyers' email and phone)";
  const base = `/events/${eventId}`;
  return html`<section class="no-print" aria-labelledby="exports">
    <h2 id="exports">Runners to download or print</h2>
    <p>
      One row per runner of a paid order (cancelled or unpaid registrations are left out): their order, ticket
      type, distance, date of birth, answers to the event's questions, bib number, ${contacts}, what they paid
      with its booking fee, and when they registered in the event's time zone. Each download is recorded in
      the audit log.
    </p>
    <p class="actions">
      <a class="button" href="${base}/runners.xlsx" download>Download runners (Excel)</a>
      <a class="button" href="${base}/runners.csv" download>Download runners (CSV)</a>
      <a href="${base}/pickup-list">Pickup list to print</a>
    </p>
  </section>`;
}
