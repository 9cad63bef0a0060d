// Race-day check-in: the roster a volunteer's device keeps, the check-ins it sends, and the
// changes other volunteers made.
export { syncCheckIns, REFUSAL_MESSAGES, UNDO_WINDOW_MS } from './actions/sync-check-ins.ts';
export type { CheckInResult, UndoResult } from './actions/sync-check-ins.ts';
export { checkInChanges, loadRoster } from './roster.ts';
export type { Roster } from './roster.ts';
export { readSync, SYNC_BATCH_MAX } from './sync-input.ts';
export { searchRoster } from './search-roster.ts';
