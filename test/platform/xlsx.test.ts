// The streamed workbook (src/platform/xlsx.ts): bytes go out while rows are still being read, the
// zip opens with every row in order, text that XML cannot hold is dropped rather than breaking the
// file, and a download cut short stops reading rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { strFromU8, unzipSync } from 'fflate';
import { xlsxChunks, type XlsxValue } from '../../src/platform/xlsx.ts';

const columns = [
  { header: 'Name', width: 20 },
  { header: 'Amount', width: 10 },
];

async function* numbered(count: number, seen: { rows: number; closed: boolean }) {
  try {
    for (let i = 1; i <= count; i++) {
      seen.rows = i;
      yield i;
    }
  } finally {
    seen.closed = true;
  }
}

const cells = (i: number): XlsxValue[] => [`Runner ${i}`, { kind: 'amount', value: i / 100, decimals: 2 }];

test('streams: the first bytes leave long before the last row is read, and the zip holds them all', async () => {
  const seen = { rows: 0, closed: false };
  const chunks: Uint8Array[] = [];
  const readAt: number[] = [];
  for await (const chunk of xlsxChunks({
    sheetName: 'Orders',
    columns,
    rows: numbered(20_000, seen),
    cells,
  })) {
    chunks.push(chunk);
    readAt.push(seen.rows);
  }
  assert.ok(
    readAt.some((rows) => rows > 0 && rows < 5_000),
    `rows read at each chunk: ${readAt.join(',')}`,
  );
  assert.ok(readAt.filter((rows) => rows < 20_000).length > 3);
  const files = unzipSync(new Uint8Array(Buffer.concat(chunks)));
  assert.deepEqual(Object.keys(files).sort(), [
    '[Content_Types].xml',
    '_rels/.rels',
    'xl/_rels/workbook.xml.rels',
    'xl/styles.xml',
    'xl/workbook.xml',
    'xl/worksheets/sheet1.xml',
  ]);
  const sheet = strFromU8(files['xl/worksheets/sheet1.xml']!);
  const rows = [...sheet.matchAll(/<row r="(\d+)">/g)].map((m) => Number(m[1]));
  assert.equal(rows.length, 20_001);
  assert.ok(rows.every((r, i) => r === i + 1));
  assert.match(
    sheet,
    /<row r="20001"><c r="A20001" t="inlineStr"><is><t xml:space="preserve">Runner 20000<\/t><\/is><\/c><c r="B20001" s="6"><v>200<\/v><\/c><\/row><\/sheetData>/,
  );
  assert.match(strFromU8(files['xl/workbook.xml']!), /<sheet name="Orders"/);
  assert.equal(seen.closed, true);
});

test('text XML cannot hold is dropped, long text cut to what Excel keeps; formulas stay text', async () => {
  const odd = ['a\u0000b\u0007c\uD800d', 'x'.repeat(40_000), '=SUM(A1:A2)', '<b>&amp;</b>'];
  const chunks: Uint8Array[] = [];
  async function* one() {
    yield 1;
  }
  for await (const chunk of xlsxChunks({ sheetName: 'S', columns, rows: one(), cells: () => odd })) {
    chunks.push(chunk);
  }
  const sheet = strFromU8(unzipSync(new Uint8Array(Buffer.concat(chunks)))['xl/worksheets/sheet1.xml']!);
  const texts = [...sheet.matchAll(/<t xml:space="preserve">([^<]*)<\/t>/g)].map((m) => m[1]!);
  assert.deepEqual(texts.slice(2), [
    'abcd',
    'x'.repeat(32_767),
    '=SUM(A1:A2)',
    '&lt;b&gt;&amp;amp;&lt;/b&gt;',
  ]);
  assert.doesNotMatch(sheet, /<f>/);
});

test('a consumer that stops reading stops the rows', async () => {
  const seen = { rows: 0, closed: false };
  let chunks = 0;
  for await (const _ of xlsxChunks({ sheetName: 'S', columns, rows: numbered(100_000, seen), cells })) {
    chunks += 1;
    if (seen.rows > 0) break;
  }
  assert.ok(chunks >= 1);
  assert.equal(seen.closed, true);
  assert.ok(seen.rows < 100_000, `${seen.rows} rows read`);
});
