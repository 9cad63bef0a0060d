// The printed table and goal lines.
import type { Goal, TableRow } from './scenario.ts';

export function formatTable(rows: TableRow[]): string {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'ratio vs baseline'];
  const cells = rows.map((r) => [
    r.scenario,
    r.rps.toFixed(0),
    String(r.p50),
    String(r.p99),
    String(r.non2xx),
    r.ratioNote ?? (r.ratio === null ? '1.00 (baseline)' : `${r.ratio.toFixed(2)}x`),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c.map((v, i) => (i === 0 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)].join('\n');
}

export function formatGoal(goal: Goal): string {
  const verdict = goal.applies ? (goal.pass ? 'PASS' : 'FAIL') : goal.pass ? 'pass*' : 'fail*';
  return `  ${verdict.padEnd(5)}  ${goal.name}: ${goal.measured} (goal ${goal.target})`;
}
