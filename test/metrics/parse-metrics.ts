// Prometheus text format (version 0.0.4) as the tests read it: each sample by its series, written
// `name{a="1",b="2"}` with the labels in name order, or just `name` when it has none.
import assert from 'node:assert/strict';

export type Samples = Map<string, number>;

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
const VALUES: Record<string, number> = { '+Inf': Infinity, '-Inf': -Infinity, Nan: NaN, NaN: NaN };

export function seriesKey(name: string, labels: Record<string, string>): string {
  const names = Object.keys(labels).sort();
  if (names.length === 0) return name;
  return `${name}{${names.map((label) => `${label}="${labels[label]}"`).join(',')}}`;
}

export function parseMetrics(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    assert.ok(match, `not a sample line: ${line}`);
    const [, name, labelText, valueText] = match;
    const labels: Record<string, string> = {};
    for (const [, label, value] of (labelText ?? '').matchAll(LABEL)) {
      labels[label!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    const key = seriesKey(name!, labels);
    assert.ok(!samples.has(key), `series twice: ${key}`);
    samples.set(key, VALUES[valueText!] ?? Number(valueText));
  }
  return samples;
}
