// The start list as CSV (RFC 4180), produced row by row from keyset batches. UTF-8 with a byte
// order mark: without it Excel reads the file as the local code page and garbles names such as
// "Nakalembe Ssekitoleko-Müller". A text cell that a spreadsheet would run as a formula (starting
// with = + - @, or a tab or carriage return) gets a leading apostrophe (platform/csv.ts).
import { csvLines } from '../platform/index.ts';
import type { RaceEvent } from './race-event.ts';
import type { StartListRow } from './start-list.ts';

/**
 * The file's lines, header first, from the start list's rows in order (walkStartList); a consumer
 * that stops reading stops the reads.
 */
export function startListCsv(race: RaceEvent, rows: AsyncIterable<StartListRow>): AsyncGenerator<string> {
  const questions = race.event.additionalQuestions;
  return csvLines(
    ['Bib', 'Name', 'Ticket type', 'Age on race day', ...questions.map((q) => q.label), 'Order code'],
    rows,
    (row) => [
      row.bib,
      row.participantName,
      row.ticketTypeName,
      row.age,
      ...questions.map((q) => row.answers[q.key] ?? ''),
      row.orderCode,
    ],
  );
}

/** A download's file name: the event's handle (letters, digits, dashes), then `what`. */
export function eventFileName(race: RaceEvent, what: string): string {
  const handle = race.event.handle.replace(/[^A-Za-z0-9-]/g, '').slice(0, 80) || 'event';
  return `${handle}-${what}`;
}

export function csvFileName(race: RaceEvent): string {
  return eventFileName(race, 'start-list.csv');
}
