// Tickets: one per confirmed registration, issued with the order's confirmation, opened by token;
// a transfer of the place voids it and issues the next.
export { transferPlace } from './actions/transfer-place.ts';
export type { TransferredPlace } from './actions/transfer-place.ts';
export { findTransferredTicket, findValidTicket, issueTickets, ticketsOfOrder } from './issue-tickets.ts';
export type { OrderTicket } from './issue-tickets.ts';
export { isTicketToken, ticketPagePath } from './ticket-codes.ts';
export { voidTickets } from './void-tickets.ts';
export { issueEventTickets, ticketsOfRegistrations } from './event-tickets.ts';
