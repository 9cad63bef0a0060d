// A mail as the service hands it over, the checks it passes before it goes anywhere, and what a
// log line may say about it: never the body (it may hold a sign-in or reset link) nor an address.
import { LONE_SURROGATE } from '../platform/index.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

export type MailErrorCode = 'invalid_message' | 'not_configured' | 'closed' | 'timeout' | 'send_failed';

/** Why a send failed; an SMTP error, when there was one, is its cause. */
export class MailError extends Error {
  readonly code: MailErrorCode;
  constructor(code: MailErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'MailError';
    this.code = code;
  }
}

const MAX_ADDRESS = 254;
const MAX_SUBJECT = 400;
const MAX_BODY = 200_000;
// One plain address: a comma, a display name or an angle bracket could add a recipient.
const ADDRESS = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/;

/** A control character (C0 or DEL); tab and line breaks count only when `lineBreaks` is false. */
function hasControl(text: string, lineBreaks: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7f || (c < 0x20 && !(lineBreaks && (c === 0x09 || c === 0x0a || c === 0x0d)))) return true;
  }
  return false;
}

function invalid(message: string): MailError {
  return new MailError('invalid_message', message);
}

/** Throws invalid_message unless the message is one recipient, a one-line subject and storable text. */
export function checkMailMessage(message: MailMessage): void {
  if (typeof message !== 'object' || message === null) throw invalid('a message is required');
  const { to, subject, text, html } = message;
  if (typeof to !== 'string' || to.length > MAX_ADDRESS || !ADDRESS.test(to) || hasControl(to, false)) {
    throw invalid('to must be one email address');
  }
  if (
    typeof subject !== 'string' ||
    subject.trim() === '' ||
    subject.length > MAX_SUBJECT ||
    hasControl(subject, false) ||
    LONE_SURROGATE.test(subject)
  ) {
    throw invalid(`subject must be one line of text, at most ${MAX_SUBJECT} characters`);
  }
  for (const [name, body] of [
    ['text', text],
    ['html', html],
  ] as const) {
    if (name === 'html' && body === undefined) continue;
    if (
      typeof body !== 'string' ||
      body.length > MAX_BODY ||
      hasControl(body, true) ||
      LONE_SURROGATE.test(body)
    ) {
      throw invalid(`${name} must be text without control characters, at most ${MAX_BODY} characters`);
    }
  }
}

/** The domain of an address (or of a From such as `Name <user@host>`), lower-cased; undefined if none. */
export function mailDomain(address: unknown): string | undefined {
  if (typeof address !== 'string') return undefined;
  const match = /@([^@\s<>]+)>?\s*$/.exec(address);
  return match?.[1]?.toLowerCase().slice(0, 100);
}

/** Addresses and URLs cut out of a server's or a library's text before it is logged. */
function redactMailText(text: string): string {
  return text
    .replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '[url]')
    .replace(/[^\s<>"'(),;:[\]]+@[^\s<>"'(),;:[\]]+/g, '[address]');
}

/** The failure under a MailError, as kept on it: code, SMTP reply code and command, and text. */
export interface MailFailureCause extends Error {
  code?: string;
  responseCode?: number;
  command?: string;
}

/**
 * The cause a MailError carries, made safe to log wherever the error goes (a caller's log line
 * folds the cause into the message): the failure's code, and with `smtp` its SMTP reply code,
 * command and text, addresses and URLs cut out. A failed insert's text would quote the mail
 * itself, so the mailbox's failures keep their code only.
 */
export function safeCause(err: unknown, smtp: boolean): MailFailureCause {
  const raw = (typeof err === 'object' && err !== null ? err : {}) as {
    code?: unknown;
    responseCode?: unknown;
    command?: unknown;
    message?: unknown;
  };
  const text = smtp && typeof raw.message === 'string' ? redactMailText(raw.message).slice(0, 300) : 'failed';
  const cause: MailFailureCause = new Error(text);
  cause.name = smtp ? 'SmtpError' : 'MailboxError';
  if (typeof raw.code === 'string') cause.code = raw.code.slice(0, 40);
  if (smtp && typeof raw.responseCode === 'number') cause.responseCode = raw.responseCode;
  if (smtp && typeof raw.command === 'string') cause.command = redactMailText(raw.command).slice(0, 40);
  return cause;
}

/** What a failed send's log line says: our code and reason, and the safe cause's fields. */
export function failureFields(error: MailError): Record<string, unknown> {
  const fields: Record<string, unknown> = { error_code: error.code, reason: error.message };
  const cause = error.cause as MailFailureCause | undefined;
  if (cause instanceof Error) {
    if (cause.code !== undefined) fields.cause_code = cause.code;
    if (cause.responseCode !== undefined) fields.smtp_response_code = cause.responseCode;
    if (cause.command !== undefined) fields.smtp_command = cause.command;
    if (cause.name === 'SmtpError') fields.detail = cause.message;
  }
  return fields;
}
