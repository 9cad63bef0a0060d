// Tickets: one per confirmed registration, issued with the order's confirmation, opened by token.
export { findValidTicket, issueTickets, ticketsOfOrder } from './issue-tickets.ts';
export type { OrderTicket } from './issue-tickets.ts';
export { isTicketToken, ticketPagePath } from './ticket-codes.ts';
export { issueEventTickets, ticketsOfRegistrations } from './event-tickets.ts';
