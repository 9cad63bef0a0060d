// The development mailbox's store: mail kept in dev_mail instead of sent (no SMTP_URL outside
// production), for the mailbox page on the APP host (APP_URL/dev/mailbox) to list and show.
import { desc, eq } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { devMail } from './mail.schema.ts';

export type DevMailRow = typeof devMail.$inferSelect;

/** How many mails listDevMail returns when not told, and the most it returns at once. */
const DEV_MAIL_LIST_DEFAULT = 50;
export const DEV_MAIL_LIST_MAX = 200;

/** The shape of a kept mail's id (newId('mail')): anything else is no mail, without a query. */
const DEV_MAIL_ID = /^mail_[0-9A-Za-z]{24}$/;

export interface KeptMail {
  id: string;
  to: string;
  subject: string;
  text: string;
  html?: string | undefined;
}

// created_at holds milliseconds, and mails sent one after another often share one: each mail kept
// by this process is stamped at least a millisecond after the one before, so newest first is the
// order they were sent in.
let lastKeptAt = 0;

function nextKeptAt(): Date {
  lastKeptAt = Math.max(Date.now(), lastKeptAt + 1);
  return new Date(lastKeptAt);
}

/** Keeps one mail in the development mailbox (the mailer's `mailbox` kind). */
export async function keepDevMail(db: Executor, mail: KeptMail): Promise<void> {
  await db.insert(devMail).values({
    id: mail.id,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html ?? null,
    createdAt: nextKeptAt(),
  });
}

/** The kept mail, newest first; `limit` is a whole number from 1 to DEV_MAIL_LIST_MAX. */
export async function listDevMail(
  db: Executor,
  limit: number = DEV_MAIL_LIST_DEFAULT,
): Promise<DevMailRow[]> {
  if (!Number.isInteger(limit) || limit < 1 || limit > DEV_MAIL_LIST_MAX) {
    throw new RangeError(`limit must be a whole number from 1 to ${DEV_MAIL_LIST_MAX}`);
  }
  // The id breaks ties (mails kept by different processes in one millisecond) so pages agree.
  return db.select().from(devMail).orderBy(desc(devMail.createdAt), desc(devMail.id)).limit(limit);
}

/** One kept mail by its id; undefined for an unknown or malformed id (a page answers 404). */
export async function findDevMail(db: Executor, id: string): Promise<DevMailRow | undefined> {
  if (typeof id !== 'string' || !DEV_MAIL_ID.test(id)) return undefined;
  const [row] = await db.select().from(devMail).where(eq(devMail.id, id)).limit(1);
  return row;
}
