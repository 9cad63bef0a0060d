// Mail kept in the database instead of sent, in development without SMTP_URL, for the
// development mailbox page (APP_URL/dev/mailbox). Production never writes here.
import { pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from '../platform/columns.schema.ts';

export const devMail = pgTable('dev_mail', {
  id: text('id').primaryKey(),
  to: text('to').notNull(),
  subject: text('subject').notNull(),
  text: text('text').notNull(),
  html: text('html'),
  createdAt: ts('created_at').notNull().defaultNow(),
});
