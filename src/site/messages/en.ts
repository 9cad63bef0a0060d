// The hosted checkout in English: the catalog every other language follows (catalog.ts).
// Messages that take values are functions; the page script's (`script`) are strings with {names}.
import { statusEn } from './status.en.ts';
import { mailEn } from './mail.en.ts';
import { ticketEn } from './ticket.en.ts';
import { embedEn } from './embed.en.ts';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export const en = {
  common: {
    secureCheckout: 'Secure checkout',
    secureCheckoutFor: (organizer: string) => `Secure checkout for ${organizer}.`,
    questions: 'Questions?',
    language: 'Language',
    thereIsAProblem: 'There is a problem',
    errorPrefix: 'Error: ',
    cancel: 'Cancel',
    cancelAndReturnTo: (partner: string) => `Cancel and return to ${partner}`,
    choose: 'Choose…',
    zoneTime: (city: string) => `${city} time`,
  },
  form: {
    pageTitle: (event: string) => `Checkout – ${event}`,
    errorTitle: (event: string) => `Error: Checkout – ${event}`,
    stepCount: (position: number, count: number) => `Step ${position} of ${count}`,
    tickets: 'Tickets',
    yourDetails: 'Your details',
    payment: 'Payment',
    total: 'Total',
    noTicketsYet: 'No tickets yet',
    free: 'Free',
    continue: 'Continue',
    back: 'Back',
    /** Back on the details step when the checkout started there: the tickets were chosen for the buyer */
    changeTickets: 'Change tickets',
    pay: (total: string) => `Pay ${total}`,
    confirmRegistration: 'Confirm registration',
    confirming: 'Confirming…',
    sendingPrompt: 'Sending the payment prompt…',
    chooseTickets: (max: number) => `Choose tickets (at most ${max} per order)`,
    feesShownFor: (method: string) => `Fees shown are for ${method}.`,
    feeIncluded: (fee: string) => `incl. ${fee} fee`,
    quantity: 'Quantity',
    quantityOf: (ticket: string) => ` of ${ticket}`,
    distance: (km: number) => `${km} km`,
    onSaleFrom: (date: string) => `On sale from ${date}`,
    salesClosed: 'Sales have closed',
    onSaleUntil: (date: string) => `On sale until ${date}`,
    minimumAge: (age: number) => `Minimum age ${age} on race day`,
    soldOut: 'Sold out',
    onlyLeft: (n: number) => `Only ${n} left`,
    allHeld: 'All left are held by buyers paying now.',
    mayFreeUpAfter: (time: string) => ` Some may free up after ${time}.`,
    heldNotSoldOut: 'The tickets left are held by buyers paying now. Some may free up soon: see below.',
    iAmTheRunner: 'I am the runner',
    /** the runner hint now that the buyer's name is above it, on the same step */
    runnerIsYou: 'Participant 1 is you: we use your name from above.',
    participant: (n: string, ticket: string) => `Participant ${n}: ${ticket}`,
    fullName: 'Full name',
    fullNameHint: 'As it should appear on the results list',
    optional: (label: string) => `${label} (optional)`,
    dateOfBirth: 'Date of birth',
    emergencyContactName: 'Emergency contact name',
    emergencyContactPhone: 'Emergency contact phone',
    emergencyContactHint: 'Someone we can call on race day if the runner needs help.',
    dateOfBirthHint: (age: number, raceDay: string) =>
      `The participant must be at least ${age} on race day, ${raceDay}.`,
    buyerHint: 'We send the confirmation and race details to you.',
    yourName: 'Your name',
    email: 'E-mail',
    phoneNumber: 'Phone number',
    /** after the phone's label while a free registration may leave it out */
    optionalMark: '(optional)',
    readWaiver: (version: string) => `Read the waiver (version ${version})`,
    acceptWaiver: (version: string) =>
      `I accept the waiver (version ${version}) for every participant in this order`,
    addDonation: 'Add a donation (optional)',
    donationLabel: (currency: string) => `Donation in ${currency} (optional)`,
    donationHint: (organizer: string) => `Add a gift to ${organizer}, or leave it empty.`,
    orderSummary: 'Order summary',
    ticketCount: (n: number) => plural(n, 'ticket', 'tickets'),
    serviceFee: (method: string) => `Service fee (${method})`,
    donation: 'Donation',
    participantOne: 'Participant',
    participantMany: 'Participants',
    buyer: 'Buyer',
    payWith: 'Pay with',
    mobileMoneyNumber: 'Mobile money number',
    promptGoesTo: 'The payment prompt goes to this phone.',
    /** the tile's line under a method paid on the provider's page */
    cardPage: 'On the secure card page',
    notForCard: 'Not needed when you pay by card.',
    ticketsChanged: 'Your tickets changed: fill in the participants below.',
    released: 'Your tickets were released. We kept what you entered: check it and pay again.',
    promptWaiting: 'A payment prompt is waiting on your phone.',
    heldUnpaid: 'Your tickets are held for an unpaid order.',
    seePaymentStatus: 'See the payment status',
    orStartAgain: ', or start again below.',
    chooseAtLeastOne: 'Choose at least one ticket',
    chooseHowToPay: 'Choose how to pay',
    wholeNumber: (currency: string) => `Enter a whole number of ${currency}, such as 5000`,
  },
  /** Field names in messages and the error summary. */
  fields: {
    items: 'Tickets',
    participantField: (n: number, label: string) => `Participant ${n}: ${label}`,
    participantN: (n: number) => `Participant ${n}`,
    ticket: 'ticket',
    fullName: 'full name',
    dateOfBirth: 'date of birth',
    buyerName: 'Your name',
    email: 'E-mail',
    phone: 'Phone number',
    waiver: 'Waiver',
    donation: 'Donation',
    paymentMethod: 'Payment method',
    paymentPhone: 'Mobile money number',
    /** the order's own terse messages, as sentences next to their field */
    isRequired: (subject: string) => `${subject} is required`,
    isOrMust: (subject: string, rest: string) => `${subject} ${rest}`,
  },
  /** Each phone country's words ({mobile}, {example}, {abroad} in the phone messages). */
  countries: {
    UG: {
      mobile: 'a Ugandan mobile number',
      hint: 'A Ugandan mobile number, such as 0772 123456',
      example: '0772 123456',
      abroad: '+254 712 345678',
    },
    KE: {
      mobile: 'a Kenyan mobile number',
      hint: 'A Kenyan mobile number, such as 0712 345678',
      example: '0712 345678',
      abroad: '+256 772 123456',
    },
  },
  phone: {
    invalid: 'Enter {mobile} such as {example}',
    notMobileMoney: 'This number cannot receive mobile money: enter {a} {networks} number such as {example}',
    ownNotMobileMoney:
      'Your phone number cannot receive mobile money: enter {a} {networks} number to pay from',
    /** the article before the networks' names ({a}): "an MTN or Airtel", "a Safaricom" */
    article: (names: string): string => (/^([AEIOU]|[FHLMNRSX][A-Z])/.test(names) ? 'an' : 'a'),
    wrongNetwork: (name: string) => `This is an ${name} number: choose ${name} or enter another number`,
  },
  limits: {
    minutes: (n: number) => plural(n, 'minute', 'minutes'),
    tryAgainIn: (wait: string) => `try again in about ${wait}`,
    onlyMoreHeld: (room: number, choose: string, wait: string) =>
      `Only ${plural(room, 'more ticket', 'more tickets')} can be taken for this event from your internet connection right now. Choose ${choose}, or ${wait}.`,
    oneTicket: '1 ticket',
    orFewer: (n: number) => `${n} or fewer`,
    tooManyHeld: (wait: string) =>
      `Too many tickets for this event have been taken from your internet connection in the last few minutes, free ones included. Finish paying for orders you have already started, or ${wait}.`,
    tooManyPrompts: (wait: string) =>
      `Too many payment prompts have gone to this number in the last 10 minutes. Use another number, or ${wait}.`,
  },
  /** What the page script says, sent to it with the page (plain strings, {names} filled in). */
  script: {
    stepCount: 'Step {position} of {count}',
    errorPrefix: 'Error: ',
    noTicketsYet: 'No tickets yet',
    free: 'Free',
    pay: 'Pay {total}',
    continue: 'Continue',
    confirmRegistration: 'Confirm registration',
    confirming: 'Confirming…',
    guessedNetwork: 'We chose {network} from the number; change it if it is wrong.',
    chooseAtLeastOne: 'Choose at least one ticket',
    chooseAtMost: 'Choose at most {max} tickets',
    isRequired: '{label} is required',
    enterDateOfBirth: 'Enter the date of birth',
    enterPhoneNumber: 'Enter a phone number such as {example} or {abroad}',
    tooYoung: 'The participant must be at least {age} on race day',
    enterEmail: 'Enter an e-mail address such as name@example.com',
    acceptWaiver: 'Accept the waiver to continue',
    /** next to a main button that is not ready yet: the step's required fields still empty */
    toFillOne: '1 field to fill',
    toFillMany: '{n} fields to fill',
    wholeNumber: 'Enter a whole number of {currency}, such as 5000',
    chooseHowToPay: 'Choose how to pay',
    serviceFee: 'Service fee ({method})',
    donation: 'Donation',
    total: 'Total',
    ticketOne: '{n} ticket',
    ticketMany: '{n} tickets',
    participantOne: 'Participant',
    participantMany: 'Participants',
    buyer: 'Buyer',
    phoneInvalid: 'Enter {mobile} such as {example}',
    phoneNotMobileMoney:
      'This number cannot receive mobile money: enter {a} {networks} number such as {example}',
    phoneOwnNotMobileMoney:
      'Your phone number cannot receive mobile money: enter {a} {networks} number to pay from',
    phoneWrongNetwork: 'This is an {name} number: choose {name} or enter another number',
    closeAskTitle: 'Close while your payment is waiting?',
    closeAskText:
      'A payment prompt is on your phone. If you approve it, you will still be charged, and this window will open again with your order code.',
    closeCardText:
      'Your card payment is not finished. If you complete it on the card page, you will still be charged, and this window will open again with your order code.',
    keepWaiting: 'Keep waiting',
    closeAnyway: 'Close',
    /** the same confirm when the buyer has typed something and no prompt is out */
    closeTypedTitle: 'Close the checkout?',
    closeTypedText: 'What you entered will be lost.',
    keepGoing: 'Keep going',
    // A submission that failed in place (send-form.ts): the server's own words when it answered
    // 503, these when nothing came back.
    tryAgain: 'Try again',
    offlineTitle: 'We could not reach the checkout',
    offlineNothing: 'Nothing was sent to your phone.',
    offlinePrompt:
      'We cannot tell whether a payment prompt was sent to your phone. Check your phone before you try again: if a prompt is there, approve it. Trying again does not send a second prompt while one is waiting.',
    offlineKept: 'What you entered is still here. Check your connection, then try again.',
    /** the wait screen while its status checks fail */
    stillChecking:
      'We cannot reach the checkout just now. We keep checking: if the prompt is on your phone, you can approve it.',
  },
  /** The pages around the form (status.en.ts). */
  status: statusEn,
  /** The ticket page and the confirmation's tickets (ticket.en.ts). */
  ticket: ticketEn,
  /** The confirmation and transfer mails (mail.en.ts). */
  mail: mailEn,
  /** checkout.js's own words and the embedded page's close control (embed.en.ts). */
  embed: embedEn,
};
