// The pages around the form in English: the payment wait screen, its outcomes and retry form, the
// cancel step, the confirmation and the dead ends. Templates with {names} hold markup the view
// fills in (a countdown, an amount in bold); plain functions make whole sentences.

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export const statusEn = {
  /** a wait as a buyer reads it (buyer-limits.ts formatWait); minutes are limits.minutes */
  seconds: (n: number) => plural(n, 'second', 'seconds'),
  /** what each failure_kind means to the buyer (status-pages.ts outcomeOf) */
  outcomes: {
    payment_declined: {
      title: 'The payment was declined',
      text: 'The payment was not approved on the phone. You can try again, or pay with another number or network.',
    },
    payment_timeout: {
      title: 'The payment prompt timed out',
      text: 'Nobody approved the prompt in time. Check that the phone is on and has signal, then try again.',
    },
    insufficient_funds: {
      title: 'Not enough money on the account',
      text: 'The mobile money balance is too low for this payment. Top up and try again, or pay from another number.',
    },
    invalid_phone_number: {
      title: 'That number cannot receive payment prompts',
      text: 'The number is not registered for mobile money on this network. Check it, or use another number or network.',
    },
    provider_error: {
      title: 'The mobile money service had a problem',
      text: 'The network could not take the payment just now. Try again in a moment, or use the other network.',
    },
    hold_expired: {
      title: 'Time ran out',
      text: 'Your tickets were released because the payment was not completed in time. You can start again.',
    },
  },
  /** a failure without a known failure_kind */
  didNotGoThrough: 'The payment did not go through. You can try again.',
  /** why a payment could not be started, by error_code (?error= on the wait page) */
  startErrors: {
    amount_below_minimum: 'This amount is below the mobile money minimum, so it cannot be paid by phone.',
    amount_too_large:
      'This amount is above what this mobile money network takes in one payment. Choose fewer tickets, or try the other network.',
    order_not_payable: 'This order can no longer be paid.',
    validation_failed: 'The payment could not be started: check the number and the network.',
    internal_error: 'The payment prompt could not be sent. Try again.',
  },
  // The wait screen.
  approveTitle: 'Approve the payment on your phone',
  payAnotherWayTitle: 'Pay with another number or network',
  /** the same, where the event offers one network */
  payAnotherNumberTitle: 'Pay with another number',
  payTitle: 'Pay for your order',
  /** {amount} and {target} are markup */
  promptSent: 'We sent a prompt for {amount} to {target}. Enter your PIN on the phone to approve it.',
  /** "MTN Mobile Money number 0770 ••• 002": {number} is markup */
  promptTarget: '{network} number {number}',
  mobileMoney: 'mobile money',
  timeToApprove: 'Time left to approve: {time}',
  noPrompt:
    'No prompt? Open your mobile money menu ({menus}) and look for approvals waiting. This page updates by itself.',
  resendPrompt: 'Resend prompt',
  sentAgainAt: (time: string) => `Sent again at ${time}.`,
  useAnother: 'Use another number or network',
  useAnotherNumber: 'Use another number',
  checkStatus: 'Check the payment status',
  heldFor: 'Your tickets are held for {time} more.',
  promptMayStillBeOn:
    'The prompt sent to {target} may still be on that phone. Approve only one prompt: if you approve that one, your order is paid and you need not send another.',
  orderTotal: 'Order total: {amount}',
  changeOrder: 'Change the order',
  tryAgain: 'Try again',
  // The retry form.
  network: 'Network',
  mobileMoneyNumber: 'Mobile money number',
  retryPhoneHint: 'The same number, or another one: the prompt goes to this phone.',
  sending: 'Sending…',
  sendPrompt: 'Send the payment prompt',
  // Closed orders.
  cancelledTitle: 'This order was cancelled',
  nothingCharged: 'Nothing was charged for it.',
  releasedAfterFailures:
    'After {count} payments that did not go through, your places were released for other runners. Nothing was charged. You can start again, with another number or network.',
  startAgain: 'Start again',
  // Cancelling while a prompt is out.
  cancelWhilePrompt: 'Cancel while a prompt is on your phone?',
  cancelWarning:
    'A payment prompt for {amount} is on {target}. If you approve it, you will still be charged and registered for {event}.',
  cancelHowTo: 'To leave without paying, decline the prompt on the phone (or let it expire), then cancel.',
  keepWaiting: 'Keep waiting',
  cancelAnyway: 'Cancel anyway',
  cancelPageTitle: (event: string) => `Cancel the payment? – ${event}`,
  // The confirmation.
  registered: 'You are registered',
  paymentReceived: 'Payment of {amount} received.',
  registrationConfirmed: 'Your registration is confirmed.',
  yourOrderCode: 'Your order code',
  registrations: 'Registrations',
  /** Registration.status as the buyer reads it */
  registrationStatus: { pending: 'pending', confirmed: 'confirmed', cancelled: 'cancelled' } as Record<
    string,
    string
  >,
  whatNext: 'What happens next',
  keepCode: 'Keep your order code: quote it to the organizer and at race-pack collection.',
  detailsByEmail: (organizer: string) =>
    `${organizer} will send race details to the e-mail address you gave.`,
  detailsToYou: (organizer: string) => `${organizer} will send race details to you.`,
  writeTo: 'Questions? Write to {email} with your order code.',
  continueTo: (partner: string) => `Continue to ${partner}`,
  done: 'Done',
  registeredTitle: (event: string) => `Registered – ${event}`,
  // Dead ends.
  close: 'Close',
  returnTo: (partner: string) => `Return to ${partner}`,
  expiredTitle: 'This checkout has expired',
  expiredText: 'Checkout links work for 24 hours. To register, start again from the website you came from.',
  closedTitle: 'Registration is closed',
  closedText: (event: string) => `Registration for ${event} is not open at the moment.`,
  cancelledCheckout: 'Checkout cancelled',
  declineLeftPrompt:
    'If a payment prompt is still on your phone, decline it: approving it would still charge and register you.',
  nothingWasCharged: 'Nothing was charged.',
  youCanClose: 'You can close this page.',
  notFoundTitle: 'Checkout not found',
  notFoundText:
    'This checkout link is not valid. Check the link, or start again from the website you came from.',
  tooManyRequests: 'Too many requests',
  pleaseWait: (seconds: string) =>
    `Please wait ${seconds} second${seconds === '1' ? '' : 's'} and try again.`,
  aFew: 'a few',
  pageNotFound: 'Page not found',
  checkTheLink: 'Check the link, or start again from the website you came from.',
  notHandled: 'That request could not be handled',
  goBack: 'Go back and try again.',
  ourSide: 'Something went wrong on our side',
  tryInAMoment: 'Please try again in a moment.',
  reference: (id: string) => `Reference for support: ${id}`,
  // A request the checkout could not answer just now (503; views/unavailable-page.ts): what this
  // request did on the buyer's phone, and how to send it again.
  unavailableTitle: 'Sorry, the checkout is unavailable for a moment',
  unavailablePrompt: {
    /** opening a page, moving between steps, cancelling: nothing of these reaches a phone */
    nothing: 'Nothing was sent to your phone.',
    /** Pay or a retry, refused before any prompt was recorded */
    none: 'No payment prompt was sent to your phone, and nothing was charged.',
    /** "Resend prompt" or "Use another number": the earlier prompt stays as it was */
    noneNew:
      'No new payment prompt was sent. If the prompt sent before is still on your phone, you can approve it.',
    sent: 'A payment prompt was sent to your phone: approve it there, then check the payment status.',
    unknown:
      'We cannot tell whether a payment prompt was sent to your phone. Check your phone before you try again: if a prompt is there, approve it. Trying again does not send a second prompt while one is waiting.',
    /** the wait screen itself */
    waiting:
      'We could not check your payment just now. If a payment prompt is on your phone, you can still approve it: this page checks again by itself.',
  },
  answersKept: 'What you entered is kept.',
  backToCheckout: 'Back to the checkout',
  /** a payment by card: typed on the card provider's page, confirmed with the bank */
  card: {
    waitTitle: 'Pay on the card page',
    /** {amount} is markup */
    waitText:
      'Enter your card on the secure card page to pay {amount}. Your bank may ask you to confirm with a code. This page updates by itself.',
    goToPage: 'Continue to the card page',
    /** in checkout.js's frame, where the card page cannot open */
    newTab: 'Continue in a new tab',
    newTabText: 'The card page opens in a new tab. When you have paid there, this window shows your order.',
    target: 'the card page',
    payAnotherWay: 'Pay another way',
    /** the retry form's button where card is offered (by card no prompt goes out) */
    pay: 'Pay',
    cancelTitle: 'Cancel while the card page is open?',
    cancelWarning:
      'The card page for {amount} may still be open. If you pay there, you will still be charged and registered for {event}.',
    cancelHowTo: 'To leave without paying, close the card page without paying, then cancel.',
    /** the new tab's confirmation, for a checkout that was opened on the partner's page */
    closeTab: 'You may close this tab: the checkout you came from shows your order too.',
    outcomes: {
      payment_declined: {
        title: 'The card was declined',
        text: 'Your bank did not approve the payment. You can try again, use another card, or pay by mobile money.',
      },
      insufficient_funds: {
        title: 'Not enough money on the card',
        text: 'The card balance is too low for this payment. Try another card, or pay by mobile money.',
      },
      payment_timeout: {
        title: 'The card payment was not finished',
        text: 'The card page was not completed in time. You can try again, or pay by mobile money.',
      },
      provider_error: {
        title: 'The card service had a problem',
        text: 'The card payment could not be taken just now. Try again in a moment, or pay by mobile money.',
      },
    } as Record<string, { title: string; text: string }>,
  },
};
