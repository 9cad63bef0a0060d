// A one-sheet Excel workbook (.xlsx) written as it streams: the sheet's rows are deflated into the
// zip a few hundred at a time, so a file of any length takes the memory of one chunk. Text cells
// are inline strings, never formulas: "=1+1" stays the text "=1+1". (write-excel-file, used for
// the smaller runner export, builds the whole workbook in memory; docs/decisions/streamed-xlsx.md.)
import { Zip, ZipDeflate } from 'fflate';

/**
 * A cell: text, a plain number, text Excel must not read as a number (a phone's leading 0), a
 * number shown with thousands separators and `decimals` places, or a wall-clock date and time
 * given as milliseconds since 1970-01-01T00:00 on that clock.
 */
export type XlsxValue =
  | string
  | number
  | null
  | undefined
  | { kind: 'text'; text: string }
  | { kind: 'amount'; value: number; decimals: number }
  | { kind: 'datetime'; wallClockMs: number };

export interface XlsxColumn {
  header: string;
  /** in characters */
  width: number;
}

/** Style indexes of styles.xml's cellXfs, below; `amount` by decimal places, 0 to 3. */
const STYLE = { header: 1, datetime: 2, text: 3, amount: [4, 5, 6, 7] } as const;

const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<numFmts count="3"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm"/><numFmt numFmtId="165" formatCode="#,##0.0"/><numFmt numFmtId="166" formatCode="#,##0.000"/></numFmts>
<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts>
<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>
<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>
<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>
<cellXfs count="8">
<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>
<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>
<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
<xf numFmtId="49" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
<xf numFmtId="3" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
<xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
<xf numFmtId="4" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
<xf numFmtId="166" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
</cellXfs>
<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>
</styleSheet>`;

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>
<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>
<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>
</Types>`;

const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>
</Relationships>`;

const WORKBOOK_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>
<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
</Relationships>`;

function workbook(sheetName: string): string {
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<sheets><sheet name="${escapeXml(sheetName.slice(0, 31))}" sheetId="1" r:id="rId1"/></sheets>
</workbook>`;
}

/** Characters XML 1.0 cannot hold at all (controls other than tab and line breaks, lone surrogates). */
const NOT_XML =
  // eslint-disable-next-line no-control-regex -- those controls are what it finds
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function escapeXml(text: string): string {
  return text
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** A, B, ..., Z, AA, ...: the column letters of a cell reference. */
function columnLetters(index: number): string {
  let n = index + 1;
  let letters = '';
  while (n > 0) {
    const rest = (n - 1) % 26;
    letters = String.fromCharCode(65 + rest) + letters;
    n = Math.floor((n - 1) / 26);
  }
  return letters;
}

/** Excel keeps at most this many characters in a cell. */
const CELL_CHARACTERS = 32_767;

function textCell(ref: string, text: string, style: number): string {
  const s = style ? ` s="${style}"` : '';
  return `<c r="${ref}" t="inlineStr"${s}><is><t xml:space="preserve">${escapeXml(text.slice(0, CELL_CHARACTERS))}</t></is></c>`;
}

/** 1970-01-01 as an Excel date: days counted from 1899-12-30. */
const EPOCH_DAYS = 25_569;

function cell(ref: string, value: XlsxValue): string {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value === 'string') return textCell(ref, value, 0);
  if (typeof value === 'number') return Number.isFinite(value) ? `<c r="${ref}"><v>${value}</v></c>` : '';
  if (value.kind === 'text') return value.text === '' ? '' : textCell(ref, value.text, STYLE.text);
  if (value.kind === 'amount') {
    const style = STYLE.amount[Math.min(Math.max(value.decimals, 0), 3)];
    return `<c r="${ref}" s="${style}"><v>${value.value}</v></c>`;
  }
  return `<c r="${ref}" s="${STYLE.datetime}"><v>${value.wallClockMs / 86_400_000 + EPOCH_DAYS}</v></c>`;
}

function rowXml(number: number, letters: string[], values: XlsxValue[], style = 0): string {
  let cells = '';
  for (let i = 0; i < values.length; i++) {
    const ref = `${letters[i]}${number}`;
    const value = values[i];
    cells += style && typeof value === 'string' ? textCell(ref, value, style) : cell(ref, value);
  }
  return `<row r="${number}">${cells}</row>`;
}

function sheetHead(columns: XlsxColumn[], letters: string[]): string {
  const widths = columns
    .map((c, i) => `<col min="${i + 1}" max="${i + 1}" width="${c.width}" customWidth="1"/>`)
    .join('');
  // the header row stays in view while scrolling
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>
<cols>${widths}</cols><sheetData>${rowXml(
    1,
    letters,
    columns.map((c) => c.header),
    STYLE.header,
  )}`;
}

/** Sheet XML gathered into deflate pushes of about this many characters. */
const CHUNK_CHARACTERS = 64 * 1024;

/**
 * The workbook's bytes as they are made: `rows` are read one at a time as the consumer asks for
 * more, and a consumer that stops reading stops the rows.
 */
export async function* xlsxChunks<T>(options: {
  sheetName: string;
  columns: XlsxColumn[];
  rows: AsyncIterable<T>;
  cells: (row: T) => XlsxValue[];
}): AsyncGenerator<Uint8Array> {
  const { columns } = options;
  const letters = columns.map((_, i) => columnLetters(i));
  const ready: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, data) => {
    if (error) failure = error;
    else ready.push(data);
  });
  function* take(): Generator<Uint8Array> {
    if (failure) throw failure;
    while (ready.length > 0) yield ready.shift()!;
  }
  const encoder = new TextEncoder();
  for (const [name, text] of [
    ['[Content_Types].xml', CONTENT_TYPES],
    ['_rels/.rels', ROOT_RELS],
    ['xl/workbook.xml', workbook(options.sheetName)],
    ['xl/_rels/workbook.xml.rels', WORKBOOK_RELS],
    ['xl/styles.xml', STYLES],
  ] as const) {
    const file = new ZipDeflate(name, { level: 6 });
    zip.add(file);
    file.push(encoder.encode(text), true);
  }
  // level 1: the sheet is most of the work, and repetitive XML deflates well at the fastest level
  const sheet = new ZipDeflate('xl/worksheets/sheet1.xml', { level: 1 });
  zip.add(sheet);
  let chunk = sheetHead(columns, letters);
  let number = 1;
  for await (const row of options.rows) {
    number += 1;
    chunk += rowXml(number, letters, options.cells(row));
    if (chunk.length >= CHUNK_CHARACTERS) {
      sheet.push(encoder.encode(chunk));
      chunk = '';
      yield* take();
    }
  }
  sheet.push(encoder.encode(`${chunk}</sheetData></worksheet>`), true);
  zip.end();
  yield* take();
}
