// The order page's runners: each registration with its details (answers by their question's label,
// date of birth and age on race day, the order's waiver acceptance in the event's time), its bib,
// its ticket and the ticket's state, and, for owners and admins, the links to correct the runner
// or transfer the place. The check-in state is a row of its own when the page is given one.
import type { RunnerCheckIn } from '../../checkin/index.ts';
import type { EventRow } from '../../events/index.ts';
import { ageOnRaceDay, type OrderRow, type RegistrationRow } from '../../orders/index.ts';
import { html, isErased, type Html } from '../../platform/index.ts';
import { nationalPhone } from '../../site/index.ts';
import { formatPrice } from './fields.ts';

/** A runner's ticket as the page shows it. */
interface RunnerTicket {
  code: string;
  status: 'valid' | 'void';
  /** the ticket page's absolute address; null when the member may not open runners' tickets */
  url: string | null;
}

/** One runner of the order. */
export interface RunnerRow {
  registration: RegistrationRow;
  bib: number | null;
  /** null until the confirmation issued it (or for a registration never confirmed) */
  ticket: RunnerTicket | null;
  /** the race-day check-in (race pack collected); null before it */
  checkIn: RunnerCheckIn | null;
}

export interface RunnersView {
  order: OrderRow;
  event: EventRow | null;
  runners: RunnerRow[];
  /** the member may correct runners and transfer places (owners and admins) */
  mayChange: boolean;
  /** the member may see runners' own email and phone (set by a transfer) */
  mayContact: boolean;
  now: Date;
}

/** A registration's status as organizers read it. */
const REGISTRATION_WORDS: Record<string, string> = {
  pending: 'Waiting for payment',
  confirmed: 'Confirmed',
  cancelled: 'Cancelled',
};

const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** "12 Jul 2026, 06:30 EAT": an instant in the event's own time zone. */
export function eventLocalTime(instant: Date, zone: string): string {
  let format = dateFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      dateStyle: 'medium',
      timeStyle: 'short',
      timeZone: zone,
    });
    dateFormats.set(zone, format);
  }
  return `${format.format(instant)} (${zone})`;
}

function ticketState(r: RunnerRow): string {
  if (!r.ticket) return r.registration.status === 'confirmed' ? 'Not issued yet' : 'None';
  if (r.ticket.status === 'valid') return 'Valid';
  return 'Void';
}

/** The ticket's code (a link to its page for those who may open it) and its state, on one line. */
function ticketCell(r: RunnerRow): Html {
  const { ticket } = r;
  if (!ticket) return html`${ticketState(r)}`;
  const code =
    ticket.url && ticket.status === 'valid'
      ? html`<a href="${ticket.url}" rel="noreferrer"><code>${ticket.code}</code></a>`
      : html`<code>${ticket.code}</code>`;
  return html`${code}, ${ticketState(r)}`;
}

function birthText(dob: string | null, event: EventRow | null): string {
  if (!dob) return 'Not given';
  if (!event) return dob;
  const age = ageOnRaceDay(event, dob);
  return `${dob} (${age} on race day)`;
}

/** "Checked in 7 Mar 2027, 06:12 (Africa/Kampala) by Ann", or "Not checked in". */
function checkInText(r: RunnerRow, event: EventRow | null): string {
  if (!r.checkIn) return 'Not checked in';
  const { checkedInAt, by } = r.checkIn;
  const at = event ? eventLocalTime(checkedInAt, event.timezone) : checkedInAt.toISOString();
  return `Checked in ${at} by ${by}`;
}

function waiverText(order: OrderRow, event: EventRow | null): string {
  if (!order.waiverVersion || !order.waiverAcceptedAt) return 'Not asked';
  const at = event
    ? eventLocalTime(order.waiverAcceptedAt, event.timezone)
    : order.waiverAcceptedAt.toISOString();
  return `Version ${order.waiverVersion}, accepted ${at}`;
}

/** Whether the place may be offered for a transfer: the action decides; this only hides the link. */
function transferable(view: RunnersView, r: RunnerRow): boolean {
  return view.order.status === 'paid' && r.registration.status === 'confirmed';
}

function runnerCard(view: RunnersView, r: RunnerRow, n: number): Html {
  const { registration: reg, ticket } = r;
  const event = view.event;
  const erased = isErased(reg.participantName);
  const questions = event?.additionalQuestions ?? [];
  const known = new Set(questions.map((q) => q.key));
  const answers: [string, string][] = [
    ...questions.map((q): [string, string] => [q.label, reg.answers[q.key] ?? '—']),
    // answers to questions since removed from the event, by their key
    ...Object.entries(reg.answers).filter(([k]) => !known.has(k)),
  ];
  const deadline = event?.transferDeadline ?? null;
  const closed = deadline !== null && view.now.getTime() > deadline.getTime();
  const base = `/orders/${view.order.id}/runners/${reg.id}`;
  const headingId = `runner-${n}`;
  return html`<li class="panel runner" aria-labelledby="${headingId}">
    <h3 id="${headingId}">${reg.participantName}</h3>
    <dl class="facts">
      <dt>Ticket type</dt>
      <dd>${reg.ticketLabel}, ${formatPrice(reg.priceMinor, view.order.currency)}</dd>
      <dt>Registration</dt>
      <dd>
        ${
          reg.refundId
            ? html`<strong>Refunded</strong>: place cancelled`
            : (REGISTRATION_WORDS[reg.status] ?? reg.status)
        }
      </dd>
      <dt>Date of birth</dt>
      <dd>${birthText(reg.dateOfBirth, event)}</dd>
      ${answers.map(
        ([label, value]) =>
          html`<dt>${label}</dt>
            <dd>${value}</dd>`,
      )}
      ${
        reg.runnerEmail && view.mayContact
          ? html`<dt>Runner's contact</dt>
              <dd>${reg.runnerEmail}${reg.runnerPhone ? `, ${nationalPhone(reg.runnerPhone)}` : ''}</dd>`
          : ''
      }
      <dt>Waiver</dt>
      <dd>${waiverText(view.order, event)}</dd>
      <dt>Bib</dt>
      <dd>${r.bib === null ? 'Not given yet' : String(r.bib)}</dd>
      <dt>Ticket</dt>
      <dd data-ticket-state="${ticket?.status ?? 'none'}">${ticketCell(r)}</dd>
      <dt>Check-in</dt>
      <dd>${checkInText(r, event)}</dd>
    </dl>
    ${
      // a cancelled place (refunded, or its order given up) has nothing left to correct or transfer
      view.mayChange && !erased && reg.status !== 'cancelled'
        ? html`<p class="actions">
              <a class="button" href="${base}/correct"
                >Correct details<span class="visually-hidden"> of ${reg.participantName}</span></a
              >
              ${
                transferable(view, r) && !closed
                  ? html`<a class="button" href="${base}/transfer"
                      >Transfer place<span class="visually-hidden"> of ${reg.participantName}</span></a
                    >`
                  : ''
              }
            </p>
            ${
              transferable(view, r) && closed && deadline && event
                ? html`<p class="hint">Transfers closed ${eventLocalTime(deadline, event.timezone)}.</p>`
                : ''
            }`
        : ''
    }
  </li>`;
}

export function runnersSection(view: RunnersView): Html {
  return html`<h2>Runners</h2>
    <ol class="runners">
      ${view.runners.map((r, i) => runnerCard(view, r, i + 1))}
    </ol>`;
}
