// The SVG chart functions: labels on both axes, bar heights proportional to the numbers, names
// escaped, the same numbers in the table, and capacity bars that add up to the capacity.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  CHART,
  capacitySegments,
  colourOf,
  niceScale,
  renderCapacityBars,
  renderStackedBarChart,
  type StackedBarChart,
} from '../../src/app/views/charts.ts';
import { UNLIMITED_CAPACITY } from '../../src/events/index.ts';
import { daysBetween } from '../../src/app/views/overview-page.ts';

const chart: StackedBarChart = {
  id: 'c',
  title: 'Paid registrations per day',
  description: 'Two days',
  categories: ['20 Nov', '21 Nov', '22 Nov'],
  categoryNames: ['Fri 20 Nov 2026', 'Sat 21 Nov 2026', 'Sun 22 Nov 2026'],
  categoryHeading: 'Day',
  series: [
    { name: '10 km', values: [4, 0, 8] },
    { name: '5 km', values: [2, 6, 0] },
  ],
};

/** Whitespace collapsed and none before a tag's end: the markup's line breaks are the formatter's. */
function flat(markup: string): string {
  return markup.replace(/\s+/g, ' ').replace(/\s+>/g, '>');
}

interface Bar {
  series: number;
  value: number;
  height: number;
  fill: string;
}

function barsOf(svg: string): Bar[] {
  return [
    ...flat(svg).matchAll(
      /<rect [^>]*height="([\d.]+)" fill="([^"]+)" data-series="(\d+)" data-value="(\d+)"/g,
    ),
  ].map((m) => ({ height: Number(m[1]), fill: m[2]!, series: Number(m[3]), value: Number(m[4]) }));
}

describe('stacked bar chart', () => {
  const out = flat(renderStackedBarChart(chart).value);

  test('is an image named by its title and description', () => {
    assert.match(out, /<svg[^>]* role="img" aria-labelledby="c-title c-desc"/);
    assert.match(out, /<title id="c-title">Paid registrations per day<\/title>/);
    assert.match(out, /<desc id="c-desc">Two days<\/desc>/);
    assert.match(out, /viewBox="0 0 \d+ 220"/);
  });

  test('labels the x axis with the categories and the y axis with round steps up to the top', () => {
    for (const day of chart.categories) assert.match(out, new RegExp(`>${day}</text>`));
    // the stacks are 6, 6 and 8: steps of 2 up to 8
    for (const tick of [0, 2, 4, 6, 8])
      assert.match(out, new RegExp(`dominant-baseline="middle">${tick}</text>`));
    assert.doesNotMatch(out, />10<\/text>/);
  });

  test('draws bars whose heights are proportional to their values, one colour per series', () => {
    const bars = barsOf(out);
    assert.equal(bars.length, 4, 'zero values draw nothing');
    const plotHeight = CHART.height - CHART.top - CHART.bottom;
    for (const bar of bars) {
      assert.ok(Math.abs(bar.height - (bar.value / 8) * plotHeight) < 0.02, `bar of ${bar.value}`);
      assert.equal(bar.fill, colourOf(bar.series));
    }
    assert.notEqual(colourOf(0), colourOf(1));
  });

  test('shows the legend and the same numbers as a table with totals', () => {
    assert.match(out, /<ul class="legend">[\s\S]*10 km[\s\S]*5 km[\s\S]*<\/ul>/);
    assert.match(out, /<summary>Show as table<\/summary>/);
    const row =
      /<th scope="row"[^>]*>Sat 21 Nov 2026<\/th>\s*<td class="num">0<\/td>\s*<td class="num">6<\/td>\s*<td class="num">6<\/td>/;
    assert.match(out, row);
  });

  test('escapes ticket type names and titles everywhere', () => {
    const evil = flat(
      renderStackedBarChart({
        ...chart,
        title: '<script>alert(1)</script>',
        series: [{ name: '10 km "<b>&', values: [1, 2, 3] }],
      }).value,
    );
    assert.doesNotMatch(evil, /<script>|<b>/);
    assert.match(evil, /10 km &quot;&lt;b&gt;&amp;/);
    assert.match(evil, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  });

  test('heights stay proportional for any counts (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(5000), { minLength: 1, maxLength: 60 }), (values) => {
        const svg = renderStackedBarChart({
          ...chart,
          categories: values.map((_, i) => `d${i}`),
          categoryNames: undefined,
          series: [{ name: 'a', values }],
        }).value;
        const { top } = niceScale(Math.max(...values));
        const plotHeight = CHART.height - CHART.top - CHART.bottom;
        const bars = barsOf(svg);
        assert.equal(bars.length, values.filter((v) => v > 0).length);
        for (const bar of bars) assert.ok(Math.abs(bar.height - (bar.value / top) * plotHeight) < 0.02);
        return true;
      }),
    );
  });
});

describe('y axis scale', () => {
  test('rounds up to 1, 2 or 5 times a power of ten, never a step below one', () => {
    assert.deepEqual(niceScale(0), { top: 1, step: 1 });
    assert.deepEqual(niceScale(3), { top: 3, step: 1 });
    assert.deepEqual(niceScale(8), { top: 8, step: 2 });
    assert.deepEqual(niceScale(47), { top: 50, step: 10 });
    assert.deepEqual(niceScale(1234), { top: 1500, step: 500 });
  });
});

describe('capacity bars', () => {
  test('split the bar into sold, held and left in proportion to the capacity', () => {
    assert.deepEqual(capacitySegments({ name: 'x', capacity: 200, sold: 50, held: 10, left: 140 }), {
      sold: 25,
      held: 5,
      left: 70,
    });
    assert.deepEqual(capacitySegments({ name: 'x', capacity: 0, sold: 0, held: 0, left: 0 }), {
      sold: 0,
      held: 0,
      left: 0,
    });
  });

  test('write the numbers beside each bar and escape the name', () => {
    const out = flat(
      renderCapacityBars([{ name: '<i>10 km</i>', capacity: 500, sold: 412, held: 12, left: 76 }]).value,
    );
    assert.match(out, /&lt;i&gt;10 km&lt;\/i&gt;/);
    assert.match(
      out.replace(/\s+/g, ' '),
      /<strong>412<\/strong> sold · <strong>12<\/strong> held · <strong>76<\/strong> left of 500/,
    );
    assert.match(out, /class="bar-sold" x="0" y="0" width="82.4"/);
    assert.match(out, /class="bar-held" x="82.4" y="0" width="2.4"/);
    const open = flat(
      renderCapacityBars([{ name: 'Fun run', capacity: UNLIMITED_CAPACITY, sold: 40, held: 2, left: 0 }])
        .value,
    ).replace(/\s+/g, ' ');
    assert.match(open, /<strong>40<\/strong> sold · <strong>2<\/strong> held · no limit/);
    assert.doesNotMatch(open, /left of/);
  });
});

describe('days of the chart', () => {
  test('run over every calendar day, across a month end', () => {
    assert.deepEqual(daysBetween('2026-11-29', '2026-12-02'), [
      '2026-11-29',
      '2026-11-30',
      '2026-12-01',
      '2026-12-02',
    ]);
    assert.deepEqual(daysBetween('2026-11-29', '2026-11-29'), ['2026-11-29']);
  });
});
