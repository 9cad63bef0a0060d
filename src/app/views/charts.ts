// Charts drawn on the server as SVG, with no script: pure functions from numbers to markup. Each
// chart is an image with a title and a description for assistive technology, the same numbers
// as a table behind "Show as table", and a legend in HTML so it wraps at 320 px. The drawing
// scales with its viewBox; text and lines use currentColor so they follow forced colours.
import { isUnlimited } from '../../events/index.ts';
import { html, type Html } from '../../platform/index.ts';

/**
 * One colour per series, in order; distinct for the common colour-vision deficiencies
 * (Okabe and Ito's palette, darkened where needed for 3:1 against white).
 */
const SERIES_COLOURS = ['#1f4fbf', '#c25400', '#007a5a', '#b4478c', '#8a6d00', '#2a7ab0', '#5b3a9e', '#444'];

export function colourOf(index: number): string {
  return SERIES_COLOURS[index % SERIES_COLOURS.length]!;
}

interface Series {
  name: string;
  /** one value per category (day), in the categories' order */
  values: readonly number[];
}

export interface StackedBarChart {
  /** unique on the page: the ids of the title, description and table derive from it */
  id: string;
  title: string;
  /** the sentence a screen reader hears after the title */
  description: string;
  /** category labels along the x axis (short: "12 Nov") */
  categories: readonly string[];
  /** longer labels for the table's rows (e.g. "Thu 12 Nov 2026"); defaults to categories */
  categoryNames?: readonly string[];
  /** the table's header for the category column */
  categoryHeading: string;
  series: readonly Series[];
}

/** The drawing's geometry in viewBox units; exported for tests. */
export const CHART = { height: 220, top: 10, bottom: 30, left: 40, right: 10, font: 11 } as const;

/**
 * Width of the drawing: 320 units up to about four weeks, so that at a 320 px screen the text is
 * near its own size; wider with more categories so bars stay apart (the table has every number).
 */
function chartWidth(categories: number): number {
  return Math.min(720, Math.max(320, CHART.left + CHART.right + categories * 10));
}

/** A round top for the y axis and its step: at most 5 steps of 1, 2 or 5 times a power of ten. */
export function niceScale(max: number): { top: number; step: number } {
  if (!(max > 0)) return { top: 1, step: 1 };
  const rough = max / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  // counts are whole numbers: never a step below 1
  const step = Math.max(
    1,
    [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough)!,
  );
  return { top: Math.ceil(max / step) * step, step };
}

const round = (n: number) => Math.round(n * 100) / 100;

/** Which category labels to print: at most about `room` of them, evenly spaced, always the first. */
function labelEvery(count: number, room: number): number {
  return Math.max(1, Math.ceil(count / Math.max(1, room)));
}

/** A stacked bar per category, one colour per series, with axes, a legend and a table. */
export function renderStackedBarChart(chart: StackedBarChart): Html {
  const n = chart.categories.length;
  const width = chartWidth(n);
  const plot = {
    x: CHART.left,
    y: CHART.top,
    w: width - CHART.left - CHART.right,
    h: CHART.height - CHART.top - CHART.bottom,
  };
  const totals = chart.categories.map((_, i) => chart.series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const { top, step } = niceScale(Math.max(0, ...totals));
  const yOf = (value: number) => round(plot.y + plot.h - (value / top) * plot.h);
  const slot = n > 0 ? plot.w / n : plot.w;
  const barWidth = round(Math.max(1, slot * 0.72));

  const grid: Html[] = [];
  for (let v = 0; v <= top; v += step) {
    const y = yOf(v);
    grid.push(
      html`<line class="grid" x1="${plot.x}" x2="${plot.x + plot.w}" y1="${y}" y2="${y}"></line>
        <text class="tick" x="${plot.x - 6}" y="${y}" text-anchor="end" dominant-baseline="middle"
          >${v}</text
        >`,
    );
  }

  const every = labelEvery(n, Math.floor(plot.w / 64));
  const bars: Html[] = [];
  const labels: Html[] = [];
  chart.categories.forEach((category, i) => {
    const x = round(plot.x + i * slot + (slot - barWidth) / 2);
    let base = 0;
    chart.series.forEach((series, s) => {
      const value = series.values[i] ?? 0;
      if (value <= 0) return;
      const y0 = yOf(base);
      const y1 = yOf(base + value);
      base += value;
      bars.push(
        html`<rect
          x="${x}"
          y="${y1}"
          width="${barWidth}"
          height="${round(y0 - y1)}"
          fill="${colourOf(s)}"
          data-series="${s}"
          data-value="${value}"
          ><title>${series.name}, ${category}: ${value}</title></rect
        >`,
      );
    });
    if (i % every === 0) {
      labels.push(
        html`<text
          class="tick"
          x="${round(plot.x + i * slot + slot / 2)}"
          y="${plot.y + plot.h + 15}"
          text-anchor="middle"
          >${category}</text
        >`,
      );
    }
  });

  const titleId = `${chart.id}-title`;
  const descId = `${chart.id}-desc`;
  const names = chart.categoryNames ?? chart.categories;
  return html`<figure class="chart">
    <svg
      viewBox="0 0 ${width} ${CHART.height}"
      role="img"
      aria-labelledby="${titleId} ${descId}"
      font-size="${CHART.font}"
      preserveAspectRatio="xMinYMin meet"
    >
      <title id="${titleId}">${chart.title}</title>
      <desc id="${descId}">${chart.description}</desc>
      ${grid}
      <line
        class="axis"
        x1="${plot.x}"
        x2="${plot.x + plot.w}"
        y1="${plot.y + plot.h}"
        y2="${plot.y + plot.h}"
      ></line>
      ${bars} ${labels}
    </svg>
    ${legend(chart.series.map((s) => s.name))}
    <details>
      <summary>Show as table</summary>
      <div class="table-wrap" tabindex="0" role="region" aria-label="${chart.title}, as a table">
        <table>
          <caption class="visually-hidden">
            ${chart.title}
          </caption>
          <thead>
            <tr>
              <th scope="col">${chart.categoryHeading}</th>
              ${chart.series.map((s) => html`<th scope="col" class="num">${s.name}</th>`)}
              <th scope="col" class="num">Total</th>
            </tr>
          </thead>
          <tbody>
            ${chart.categories.map(
              (_, i) =>
                html`<tr>
                  <th scope="row" class="nowrap">${names[i]}</th>
                  ${chart.series.map((s) => html`<td class="num">${s.values[i] ?? 0}</td>`)}
                  <td class="num">${totals[i]}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </details>
  </figure>`;
}

/** The key of a chart's colours, as an HTML list that wraps on narrow screens. */
function legend(names: readonly string[]): Html {
  return html`<ul class="legend">
    ${names.map((name, i) => html`<li>${swatch(colourOf(i))}<span>${name}</span></li>`)}
  </ul>`;
}

/** A legend's colour square; null draws the empty part of a capacity bar. */
function swatch(colour: string | null): Html {
  const fill = colour === null ? html`class="bar-left" fill="#e3e7ee"` : html`fill="${colour}"`;
  return html`<svg
    class="swatch"
    viewBox="0 0 12 12"
    width="12"
    height="12"
    aria-hidden="true"
    focusable="false"
  >
    <rect width="12" height="12" ${fill}></rect>
  </svg>`;
}

export interface CapacityRow {
  name: string;
  capacity: number;
  sold: number;
  held: number;
  left: number;
}

/** The three parts of a capacity bar, in viewBox units of 100 (percentages of the capacity). */
export function capacitySegments(row: CapacityRow): { sold: number; held: number; left: number } {
  if (row.capacity <= 0 || isUnlimited(row.capacity)) return { sold: 0, held: 0, left: 0 };
  const sold = round((Math.min(row.sold, row.capacity) / row.capacity) * 100);
  const held = round(
    (Math.min(row.held, row.capacity - Math.min(row.sold, row.capacity)) / row.capacity) * 100,
  );
  return { sold, held, left: round(Math.max(0, 100 - sold - held)) };
}

/** Sold, held and left per ticket type: a bar each, with the numbers written beside it. */
export function renderCapacityBars(rows: readonly CapacityRow[]): Html {
  return html`<ul class="capacity">
      ${rows.map((row) => {
        const part = capacitySegments(row);
        return html`<li>
          <span class="capacity-name">${row.name}</span>
          <svg
            class="bar"
            viewBox="0 0 100 10"
            preserveAspectRatio="none"
            aria-hidden="true"
            focusable="false"
          >
            <rect class="bar-left" x="0" y="0" width="100" height="10" fill="#e3e7ee"></rect>
            <rect class="bar-sold" x="0" y="0" width="${part.sold}" height="10" fill="${colourOf(0)}"></rect>
            <rect
              class="bar-held"
              x="${part.sold}"
              y="0"
              width="${part.held}"
              height="10"
              fill="${colourOf(4)}"
            ></rect>
          </svg>
          <span class="capacity-figures"
            ><strong>${row.sold}</strong> sold · <strong>${row.held}</strong> held ·
            ${
              isUnlimited(row.capacity)
                ? 'no limit'
                : html`<strong>${row.left}</strong> left of ${row.capacity}`
            }</span
          >
        </li>`;
      })}
    </ul>
    ${capacityLegend()}`;
}

function capacityLegend(): Html {
  return html`<ul class="legend">
    <li>${swatch(colourOf(0))}<span>Sold</span></li>
    <li>${swatch(colourOf(4))}<span>Held by a checkout in progress</span></li>
    <li>${swatch(null)}<span>Left</span></li>
  </ul>`;
}
