// The ticket page and the confirmation's list of tickets in Swahili, message for message as
// ticket.en.ts.
import type { ticketEn } from './ticket.en.ts';

export const ticketSw: typeof ticketEn = {
  pageTitle: (event) => `Tiketi – ${event}`,
  heading: 'Tiketi ya mbio',
  runner: 'Mkimbiaji',
  ticketType: 'Aina ya tiketi',
  bib: 'Namba ya kifuani (bib)',
  bibLater: 'Bado haijatolewa',
  code: 'Namba ya tiketi',
  qrLabel: 'Msimbo wa QR wa tiketi hii',
  showIt:
    'Onyesha tiketi hii, kwenye simu yako au ikiwa imechapishwa, wakati wa kuchukua vifaa vya mbio na mwanzoni mwa mbio.',
  offline: 'Ukishaifungua, ukurasa huu unaonekana hata simu yako ikiwa haina mtandao.',
  print: 'Chapisha tiketi',
  organizedBy: (organizer) => `Imeandaliwa na ${organizer}.`,
  notFoundTitle: 'Tiketi haijapatikana',
  notFoundText:
    'Kiungo hiki cha tiketi si sahihi, au tiketi haitumiki tena. Angalia kiungo kwenye barua pepe ya uthibitisho, au muulize mwandalizi.',
  /** the page of a ticket voided by a transfer of its place: it names no one */
  transferredTitle: 'Tiketi imehamishwa',
  transferredText:
    'Tiketi hii imehamishiwa mkimbiaji mwingine na haitumiki tena. Ikiwa unadhani ni kosa, muulize mwandalizi.',
  tickets: 'Tiketi',
  ticketsIntro: 'Kila mkimbiaji ana tiketi yake: ifungue na uihifadhi kwenye simu, au uichapishe.',
  openTicket: 'Fungua tiketi',
};
