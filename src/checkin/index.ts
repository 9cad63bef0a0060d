// Race-day check-in: the roster a volunteer's device keeps, the check-ins it sends, and the
// changes other volunteers made.
export { syncCheckIns } from './actions/sync-check-ins.ts';
export { checkInsOf } from './check-ins-of.ts';
export type { RunnerCheckIn } from './check-ins-of.ts';
export { checkInChanges, loadRoster } from './roster.ts';
export { readSync } from './sync-input.ts';
export { searchRoster } from './search-roster.ts';
