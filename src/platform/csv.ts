// CSV for exports that organizers open in spreadsheets: RFC 4180 quoting, CRLF rows, and a guard
// against formula injection (a cell a spreadsheet would run as a formula starts with an apostrophe).

/** A cell: quoted when it holds a comma, quote or line break; neutralised when it looks like a formula. */
function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(values: (string | number | null | undefined)[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/** Excel opens a UTF-8 file as UTF-8 only with this mark in front: names carry accents. */
export const CSV_BOM = '\uFEFF';
