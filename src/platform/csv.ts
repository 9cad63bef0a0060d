// CSV for exports that organizers open in spreadsheets: RFC 4180 quoting, CRLF rows, and a guard
// against formula injection (a cell a spreadsheet would run as a formula starts with an apostrophe).

/** A value a spreadsheet must keep as text, such as a phone number's leading 0 (csvText). */
export interface CsvText {
  readonly text: string;
}

export type CsvValue = string | number | null | undefined | CsvText;

/**
 * A cell kept as text: digits (a phone number, "0770123456") are written ="0770123456", which Excel
 * shows as the digits themselves instead of the number 770123456 (docs/decisions/phone-numbers-in-csv.md).
 * Anything else is an ordinary text cell.
 */
export function csvText(text: string): CsvText {
  return { text };
}

/** A cell: quoted when it holds a comma, quote or line break; neutralised when it looks like a formula. */
function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') {
    // only digits, so the formula can hold nothing but the number itself
    if (/^[0-9]{1,20}$/.test(value.text)) return `"=""${value.text}"""`;
    return csvCell(value.text);
  }
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(values: CsvValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** Excel opens a UTF-8 file as UTF-8 only with this mark in front: names carry accents. */
const CSV_BOM = '\uFEFF';

/**
 * A CSV file's text as it goes out: the byte order mark and header, then the rows' lines gathered
 * into writes of about 64 kB (a few hundred rows, not one write per row). A consumer that stops
 * reading stops the rows.
 */
export async function* csvLines<T>(
  header: CsvValue[],
  rows: AsyncIterable<T>,
  cells: (row: T) => CsvValue[],
): AsyncGenerator<string> {
  yield CSV_BOM + csvRow(header);
  let chunk = '';
  for await (const row of rows) {
    chunk += csvRow(cells(row));
    if (chunk.length >= 64 * 1024) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}
