// The buyer's confirmation email of a paid order, its record and resends; a transferred place's
// mails; a refund's mail.
export { deleteOrderMails, redactOrderMails } from './erase-order-mails.ts';
export { listOrderMails } from './order-mails.ts';
export type { OrderMailRow } from './order-mails.ts';
export { resendConfirmation } from './resend-confirmation.ts';
export { confirmationFollower, confirmationJobHandlers } from './send-confirmation.ts';
export { mailTransfer } from './transfer-mails.ts';
export { refundMailFollower, refundMailJobHandlers } from './refund-mail.ts';
