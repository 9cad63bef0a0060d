// Mail through SMTP, or kept for the development mailbox.
export { deleteKeptMailTo } from './erase-kept-mail.ts';
export type { MailFailureCause } from './mail-message.ts';
export { findDevMail, listDevMail } from './mailbox.ts';
export type { DevMailRow } from './mailbox.ts';
export { createMailer, MailError } from './mailer.ts';
export type { MailMessage } from './mailer.ts';
