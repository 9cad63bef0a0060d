// What a scenario gets and gives back. A scenario is one file in bench/scenarios/ exporting a
// Scenario; bench/run.ts runs them in order against one service and one seeded database.
import type { BenchDatabase } from './database.ts';
import type { SeededPartner } from './seed.ts';
import type { BenchSettings } from './settings.ts';

export interface BenchContext {
  settings: BenchSettings;
  database: BenchDatabase;
  /** http://127.0.0.1:<port> of the service's API host */
  apiUrl: string;
  /** process id of the service child */
  servicePid: number;
  partner: SeededPartner;
  /** a new bearer token for the seeded client (POST /v1/oauth/token), all scopes unless given */
  getToken(scope?: string): Promise<string>;
  log(line: string): void;
}

/** One line of the printed table. */
export interface TableRow {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** requests/s relative to the baseline; null for the baseline itself */
  ratio: number | null;
  /** printed instead of the ratio (e.g. when the baseline could not run) */
  ratioNote?: string;
}

export interface Goal {
  name: string;
  target: string;
  measured: string;
  pass: boolean;
  /** false when the goal is defined for another database (e.g. PostgreSQL goals on PGlite) */
  applies: boolean;
}

export interface ScenarioReport {
  name: string;
  table: TableRow[];
  /** extra lines printed under the table */
  notes: string[];
  goals: Goal[];
  /** everything measured, for bench/results/latest.json */
  data: Record<string, unknown>;
}

export interface Scenario {
  name: string;
  run(ctx: BenchContext): Promise<ScenarioReport>;
}

/** What a PostgreSQL-only scenario reports on PGlite: nothing measured, and why. */
export function notMeasuredHere(name: string, what: string): ScenarioReport {
  return {
    name,
    table: [],
    notes: [`${what}: measured on PostgreSQL only`],
    goals: [],
    data: { measured: false },
  };
}
