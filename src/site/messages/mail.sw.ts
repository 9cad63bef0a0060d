// The buyer's and runners' mails in Swahili, message for message as mail.en.ts.
import type { mailEn } from './mail.en.ts';

export const mailSw: typeof mailEn = {
  hello: (name) => `Habari ${name},`,
  questions: 'Maswali? Andika kwa',
  ticketCode: 'Namba ya tiketi',
  bib: 'bib',
  confirmation: {
    subject: (event, code) => `Usajili umethibitishwa: ${event} (oda ${code})`,
    heading: (event) => `Umesajiliwa kwa ${event}`,
    confirmedText: (event) =>
      `Usajili wako kwa ${event} umethibitishwa. Hifadhi namba ya oda yako: mwandalizi anaweza kuiuliza.`,
    confirmed: 'Usajili wako umethibitishwa. Hifadhi namba ya oda yako: mwandalizi anaweza kuiuliza.',
    orderCode: 'Namba ya oda',
    event: 'Tukio',
    when: 'Lini',
    where: 'Wapi',
    paid: 'Umelipa',
    organizer: 'Mwandalizi',
    paidBy: (amount, method) => `${amount} kwa ${method}`,
    free: 'Hakuna: usajili ni bure',
    registration: 'Usajili',
    registrations: 'Usajili',
    openTicket: (runner) => `Fungua tiketi ya ${runner}`,
    ticketsNote: 'Tiketi ya kila mkimbiaji iko kwenye kiungo chake: ifungue siku ya mbio, au uichapishe.',
  },
  transfer: {
    awaySubject: (event, code) => `Nafasi imehamishwa: ${event} (oda ${code})`,
    awayHeading: 'Nafasi imehamishwa',
    away: (event, ticket) =>
      `Mwandalizi amehamisha nafasi moja katika oda yako ya ${event} (${ticket}) kwa mkimbiaji mwingine.`,
    awayOldTicket: (code) => `Tiketi yake ya zamani, namba ${code}, haitumiki tena.`,
    toSubject: (event) => `Tiketi yako ya ${event}`,
    toHeading: (event) => `Tiketi yako ya ${event}`,
    to: (event, ticket) => `Nafasi ya ${event} (${ticket}) imehamishiwa kwako.`,
    toTicket: 'Tiketi yako iko kwenye kiungo chake: ifungue siku ya mbio, au uichapishe.',
    openTicket: 'Fungua tiketi yako',
    when: 'Lini',
  },
  refund: {
    subject: (event, code) => `Marejesho ya pesa: ${event} (oda ${code})`,
    heading: 'Pesa zako zimerejeshwa',
    amount: (amount, method) => `${amount} zimerejeshwa kwako kupitia ${method}.`,
    runners: 'Nafasi za wakimbiaji hawa zimefutwa na tiketi zao hazitumiki tena:',
    whole: 'Oda yako yote sasa imerejeshewa pesa.',
    reason: 'Sababu',
  },
};
