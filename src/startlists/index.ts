// Start lists and bib numbers: ranges per ticket type, numbers given, the list and its CSV.
export { assignBibs } from './actions/assign-bibs.ts';
export { saveBibRanges } from './actions/save-bib-ranges.ts';
export { bibNumbersOf, bibProgress, listBibRanges } from './bib-numbers.ts';
export type { BibRange, TypeProgress } from './bib-numbers.ts';
export { findRaceEvent } from './race-event.ts';
export type { RaceEvent } from './race-event.ts';
export { csvFileName, eventFileName, startListCsv } from './start-list-csv.ts';
export {
  answerTotals,
  decodeStartListCursor,
  encodeStartListCursor,
  readStartList,
  walkStartList,
  walkTicketTypeByName,
} from './start-list.ts';
export type { AnswerTotals, StartListRow } from './start-list.ts';
