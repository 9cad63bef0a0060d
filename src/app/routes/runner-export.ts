// GET /events/:eventId/runners.csv and .xlsx: one row per paid runner of the event (the start
// list's order: ticket type, bib, then name), with their order, answers, bib, buyer and what they
// paid. The CSV streams from keyset batches; the workbook is written whole once every row is read.
// Buyers' email and phone are columns only for roles that see them; each download is audited.
import { Readable } from 'node:stream';
import writeXlsxFile, { type Cell } from 'write-excel-file/node';
import type { AppContext } from '../../context.ts';
import { csvLines, csvText, currencyExponent, formatMajor, type CsvValue } from '../../platform/index.ts';
import { nationalPhone } from '../../site/index.ts';
import { eventFileName, walkStartList, type RaceEvent, type StartListRow } from '../../startlists/index.ts';
import { audited, localStamp, showsContacts, type ExportRecord } from '../exports.ts';
import type { Handler } from '../replies.ts';
import { raceOf } from './start-list.ts';

interface Column {
  header: string;
  csv: (row: StartListRow) => CsvValue;
  xlsx: (row: StartListRow) => Cell;
}

/** A text cell in both files. */
function text(header: string, value: (row: StartListRow) => string | null): Column {
  return { header, csv: value, xlsx: (row) => value(row) };
}

/** A phone number, kept as text in both files so that its leading 0 stays. */
function phoneText(header: string, value: (row: StartListRow) => string): Column {
  return {
    header,
    csv: (r) => csvText(value(r)),
    // a text cell marked as text (@): Excel does not offer to "fix" it into a number
    xlsx: (r) => ({ type: String, value: value(r), format: '@' }),
  };
}

/** The columns, in the order people read them; the buyer's email and phone only with `contacts`. */
function runnerColumns(race: RaceEvent, contacts: boolean): Column[] {
  const { currency, timezone } = race.event;
  const exponent = currencyExponent(currency);
  const columns: Column[] = [
    text('Order', (r) => r.orderCode),
    text('Runner', (r) => r.participantName),
    text('Ticket type', (r) => r.ticketTypeName),
    { header: 'Distance (km)', csv: (r) => r.distanceKm, xlsx: (r) => r.distanceKm },
    text('Date of birth', (r) => r.dateOfBirth),
    ...race.event.additionalQuestions.map((q) =>
      q.type === 'phone'
        ? phoneText(q.label, (r) => r.answers[q.key] ?? '')
        : text(q.label, (r) => r.answers[q.key] ?? ''),
    ),
    { header: 'Bib', csv: (r) => r.bib, xlsx: (r) => r.bib },
    text('Buyer name', (r) => r.buyerName),
  ];
  if (contacts) {
    columns.push(
      text('Buyer email', (r) => r.buyerEmail),
      phoneText('Buyer phone', (r) => nationalPhone(r.buyerPhone)),
    );
  }
  columns.push(
    {
      header: `Paid (${currency})`,
      csv: (r) => formatMajor(r.paidMinor, r.currency),
      xlsx: (r) => ({
        type: Number,
        value: r.paidMinor / 10 ** exponent,
        format: exponent === 0 ? '#,##0' : `#,##0.${'0'.repeat(exponent)}`,
      }),
    },
    text(`Registered at (${timezone})`, (r) => localStamp(r.registeredAt, timezone)),
  );
  return columns;
}

function fileName(race: RaceEvent, extension: 'csv' | 'xlsx'): string {
  return eventFileName(race, `runners.${extension}`);
}

const csvFile = (columns: Column[], rows: AsyncIterable<StartListRow>) =>
  csvLines(
    columns.map((c) => c.header),
    rows,
    (row) => columns.map((c) => c.csv(row)),
  );

function recordOf(race: RaceEvent, file: string, contacts: boolean): ExportRecord {
  return {
    action: 'event.runners_exported',
    target: { type: 'event', id: race.event.id },
    file,
    contacts,
  };
}

export function exportRunnersCsv(ctx: AppContext): Handler {
  return async (request, reply) => {
    const race = await raceOf(ctx, request);
    const contacts = showsContacts(request);
    const file = fileName(race, 'csv');
    const rows = audited(ctx, request, recordOf(race, file, contacts), walkStartList(ctx.database.db, race));
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${file}"`)
      .header('Cache-Control', 'no-store')
      .send(Readable.from(csvFile(runnerColumns(race, contacts), rows)));
  };
}

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

export function exportRunnersXlsx(ctx: AppContext): Handler {
  return async (request, reply) => {
    const race = await raceOf(ctx, request);
    const contacts = showsContacts(request);
    const file = fileName(race, 'xlsx');
    const columns = runnerColumns(race, contacts);
    const header: Cell[] = columns.map((c) => ({ value: c.header, fontWeight: 'bold' }));
    const data: Cell[][] = [header];
    const rows = audited(ctx, request, recordOf(race, file, contacts), walkStartList(ctx.database.db, race));
    for await (const row of rows) data.push(columns.map((c) => c.xlsx(row)));
    const body = await writeXlsxFile(data, {
      sheet: 'Runners',
      stickyRowsCount: 1,
      columns: columns.map((c) => ({ width: Math.min(40, Math.max(10, c.header.length + 2)) })),
    }).toBuffer();
    return reply
      .type(XLSX_TYPE)
      .header('Content-Disposition', `attachment; filename="${file}"`)
      .header('Cache-Control', 'no-store')
      .send(body);
  };
}
