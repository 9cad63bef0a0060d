// The start list as CSV (RFC 4180), produced row by row from keyset batches. UTF-8 with a byte
// order mark: without it Excel reads the file as the local code page and garbles names such as
// "Nakalembe Ssekitoleko-Müller". A text cell that a spreadsheet would run as a formula (starting
// with = + - @, or a tab or carriage return) gets a leading apostrophe (platform/csv.ts).
import { CSV_BOM, csvRow } from '../platform/index.ts';
import type { RaceEvent } from './race-event.ts';
import type { StartListRow } from './start-list.ts';

/**
 * The file's lines, header first, from the start list's rows in order (walkStartList); a consumer
 * that stops reading stops the reads.
 */
export async function* startListCsv(
  race: RaceEvent,
  rows: AsyncIterable<StartListRow>,
): AsyncGenerator<string> {
  const questions = race.event.additionalQuestions;
  yield (
    CSV_BOM +
    csvRow(['Bib', 'Name', 'Ticket type', 'Age on race day', ...questions.map((q) => q.label), 'Order code'])
  );
  let chunk = '';
  for await (const row of rows) {
    chunk += csvRow([
      row.bib,
      row.participantName,
      row.ticketTypeName,
      row.age,
      ...questions.map((q) => row.answers[q.key] ?? ''),
      row.orderCode,
    ]);
    // a few hundred rows per write, not one write per row
    if (chunk.length >= 64 * 1024) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/** The download's file name: the event's handle (letters, digits, dashes) and "start-list". */
export function csvFileName(race: RaceEvent): string {
  const handle = race.event.handle.replace(/[^A-Za-z0-9-]/g, '').slice(0, 80) || 'event';
  return `${handle}-start-list.csv`;
}
