// The two names of a ticket: a short code a person reads out at the start, and the unguessable
// token of its page's address.
import { randomBytes } from 'node:crypto';
import { randomString } from '../platform/index.ts';

/** Letters and digits without 0/O, 1/I/L and U/V look-alikes: 29 characters, 8 of them about 39 bits. */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTWXYZ23456789';
const CODE_LENGTH = 8;
/** 24 bytes = 192 bits, written as 32 base64url characters. */
const TOKEN_BYTES = 24;

export const TICKET_CODE = new RegExp(`^[${CODE_ALPHABET}]{${CODE_LENGTH}}$`);
const TICKET_TOKEN = /^[A-Za-z0-9_-]{32}$/;

export function newTicketCode(): string {
  return randomString(CODE_LENGTH, CODE_ALPHABET);
}

export function newTicketToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** Whether a path segment can be a ticket token at all: anything else is refused unread. */
export function isTicketToken(value: unknown): value is string {
  return typeof value === 'string' && TICKET_TOKEN.test(value);
}

/** The ticket page's path on the SITE host; the mail and the QR code give it absolute. */
export function ticketPagePath(token: string): string {
  return `/tickets/${token}`;
}
