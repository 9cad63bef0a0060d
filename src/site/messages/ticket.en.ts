// The ticket page (SITE /tickets/<token>) and the confirmation's list of tickets, in English.
export const ticketEn = {
  pageTitle: (event: string) => `Ticket – ${event}`,
  heading: 'Race ticket',
  runner: 'Runner',
  ticketType: 'Ticket type',
  bib: 'Bib number',
  /** a bib not given yet */
  bibLater: 'Not given yet',
  code: 'Ticket code',
  qrLabel: 'QR code of this ticket',
  showIt: 'Show this ticket, on your phone or printed, at race-pack collection and at the start.',
  offline: 'Once opened, this page also shows when your phone is offline.',
  print: 'Print ticket',
  organizedBy: (organizer: string) => `Organized by ${organizer}.`,
  notFoundTitle: 'Ticket not found',
  notFoundText:
    'This ticket link is not valid, or the ticket is no longer valid. Check the link in your confirmation e-mail, or ask the organizer.',
  /** the page of a ticket voided by a transfer of its place: it names no one */
  transferredTitle: 'Ticket transferred',
  transferredText:
    'This ticket was transferred to another runner and no longer works. If you think this is a mistake, ask the organizer.',
  // The confirmation page after payment.
  tickets: 'Tickets',
  ticketsIntro: 'Each runner has a ticket of their own: open it and keep it on the phone, or print it.',
  /** beside the runner's name in their own list item */
  openTicket: 'Open ticket',
};
