// Mail's part of erasure (src/privacy/): the development mailbox (dev_mail, never written in
// production) forgets every mail kept for an address.
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/index.ts';
import { devMail } from './mail.schema.ts';

/** Deletes the kept mails to this address (lower-cased and trimmed by the caller); counts them. */
export async function deleteKeptMailTo(tx: Executor, email: string): Promise<number> {
  const deleted = await tx
    .delete(devMail)
    .where(sql`lower(btrim(${devMail.to})) = ${email}`)
    .returning({ id: devMail.id });
  return deleted.length;
}
