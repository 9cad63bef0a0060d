// The buyer's and runners' mails in English: the confirmation of a paid order, the two mails of
// a transferred place, and a refund's notice. Mails follow the language of the checkout the order was placed in.
export const mailEn = {
  hello: (name: string) => `Hello ${name},`,
  questions: 'Questions? Write to',
  ticketCode: 'Ticket code',
  bib: 'bib',
  confirmation: {
    subject: (event: string, code: string) => `Registration confirmed: ${event} (order ${code})`,
    heading: (event: string) => `You are registered for ${event}`,
    confirmedText: (event: string) =>
      `Your registration for ${event} is confirmed. Keep your order code: the organizer may ask for it.`,
    confirmed: 'Your registration is confirmed. Keep your order code: the organizer may ask for it.',
    orderCode: 'Order code',
    event: 'Event',
    when: 'When',
    where: 'Where',
    paid: 'Paid',
    organizer: 'Organizer',
    paidBy: (amount: string, method: string) => `${amount} by ${method}`,
    free: 'Nothing: the registration is free',
    registration: 'Registration',
    registrations: 'Registrations',
    openTicket: (runner: string) => `Open ${runner}'s ticket`,
    ticketsNote: "Each runner's ticket is at its link: open it on race day, or print it.",
  },
  transfer: {
    /** to the buyer (and a runner the place had been transferred to before) */
    awaySubject: (event: string, code: string) => `A place was transferred: ${event} (order ${code})`,
    awayHeading: 'A place was transferred',
    away: (event: string, ticket: string) =>
      `The organizer transferred a place in your order for ${event} (${ticket}) to another runner.`,
    awayOldTicket: (code: string) => `Its old ticket, code ${code}, no longer works.`,
    /** to the new runner */
    toSubject: (event: string) => `Your ticket for ${event}`,
    toHeading: (event: string) => `Your ticket for ${event}`,
    to: (event: string, ticket: string) => `A place for ${event} (${ticket}) was transferred to you.`,
    toTicket: 'Your ticket is at its link: open it on race day, or print it.',
    openTicket: 'Open your ticket',
    when: 'When',
  },
  refund: {
    subject: (event: string, code: string) => `Refund: ${event} (order ${code})`,
    heading: 'Your refund',
    amount: (amount: string, method: string) => `${amount} was refunded to you by ${method}.`,
    runners: "These runners' places were cancelled and their tickets no longer work:",
    whole: 'Your order is now fully refunded.',
    reason: 'Reason',
  },
};
