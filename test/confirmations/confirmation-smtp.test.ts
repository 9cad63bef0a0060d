// The confirmation email in production, over a real SMTP server on loopback (smtp-server): a
// server that defers the first try gets the mail on the job's retry, after its backoff, and only
// once; each try is on record. Production without SMTP_URL sends nothing, records why, says so in
// the log without the buyer's address, and does not retry.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { listOrderMails } from '../../src/confirmations/order-mails.ts';
import { CONFIRMATION_JOB } from '../../src/confirmations/send-confirmation.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { jobs } from '../../src/platform/jobs.schema.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { parseMessage, startSmtpReceiver, type SmtpReceiver } from '../mail/smtp-receiver.ts';
import { makeShop, payFreeOrder, pump, pumpFor, readOrder } from '../webhooks/webhook-helpers.ts';

let h: Harness;
let smtp: SmtpReceiver;

before(async () => {
  smtp = await startSmtpReceiver({ deferFirst: 1 });
  h = await startHarness({
    env: {
      NODE_ENV: 'production',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Race Tickets <no-reply@tickets.example>',
      WEBHOOK_TIME_SCALE: '0.0001',
    },
  });
});
after(async () => {
  // Both, even when the service failed to start: an open SMTP server would keep the file running.
  try {
    await h?.close();
  } finally {
    await smtp?.close();
  }
});

const db = () => h.service.ctx.database.db;

async function confirmationJob(orderId: string, harness = h) {
  const [job] = await harness.service.ctx.database.db
    .select()
    .from(jobs)
    .where(eq(jobs.dedupeKey, `${CONFIRMATION_JOB}:${orderId}`));
  return job;
}

test('a deferred mail is retried after a backoff and then sent over SMTP once', async () => {
  assert.equal(h.service.ctx.mailer.kind, 'smtp');
  const shop = await makeShop(h);
  const order = await payFreeOrder(h, shop);
  const code = String((await readOrder(h, shop, order.id)).order_code);
  const mails = () => listOrderMails(db(), shop.partner.organizationId, order.id);

  await pump(h, async () => (await mails()).length > 0);
  const [failed] = await mails();
  assert.equal(failed!.outcome, 'failed');
  assert.match(failed!.error ?? '', /^send_failed: the SMTP server did not take the mail \(SMTP 451\)$/);
  assert.equal(failed!.sentAt, null);
  assert.equal(smtp.received.length, 0);
  const waiting = await confirmationJob(order.id);
  assert.ok(waiting, 'the job stays for a retry');
  assert.equal(waiting.attempts, 1);
  assert.match(waiting.lastError ?? '', /send_failed/);
  assert.ok(waiting.runAt.getTime() > h.clock.now().getTime(), 'not before its backoff');
  await pumpFor(h, 100);
  assert.equal((await mails()).length, 1, 'no retry before the backoff');

  h.clock.advance(5_000);
  await pump(h, () => smtp.received.length > 0);
  await pumpFor(h, 100);
  assert.equal(smtp.received.length, 1, 'sent once');
  const received = smtp.received[0]!;
  assert.deepEqual(received.to, ['ann@example.org']);
  const { headers } = parseMessage(received.raw);
  assert.equal(headers.get('subject'), `Registration confirmed: Test Run (order ${code})`);
  assert.match(headers.get('content-type') ?? '', /^multipart\/alternative/);
  assert.match(received.raw, new RegExp(`Order code: ${code}`));
  assert.deepEqual(
    (await mails()).map((m) => m.outcome),
    ['failed', 'sent'],
  );
  assert.equal(await confirmationJob(order.id), undefined, 'the job is done');
});

test('production without SMTP_URL sends nothing, records why, logs it and does not retry', async () => {
  const lines: string[] = [];
  const off = await startHarness({
    env: { NODE_ENV: 'production', WEBHOOK_TIME_SCALE: '0.0001' },
    service: { logger: createLogger('info', { write: (line: string) => void lines.push(line) }) },
  });
  try {
    assert.equal(off.service.ctx.mailer.kind, 'none');
    const shop = await makeShop(off);
    const order = await payFreeOrder(off, shop);
    const mails = () => listOrderMails(off.service.ctx.database.db, shop.partner.organizationId, order.id);
    const before = smtp.received.length;

    await pump(off, async () => (await mails()).length > 0);
    await pumpFor(off, 100);
    off.clock.advance(3_600_000);
    await pumpFor(off, 100);
    const rows = await mails();
    assert.equal(rows.length, 1, 'tried once: a retry cannot mend it');
    assert.equal(rows[0]!.outcome, 'failed');
    assert.match(rows[0]!.error ?? '', /^not_configured: mail is off/);
    assert.equal(await confirmationJob(order.id, off), undefined, 'no job left to retry');
    assert.equal(smtp.received.length, before);
    assert.ok(lines.some((l) => /mail is off: SMTP_URL is not set/.test(l)));
    assert.ok(lines.some((l) => /"error_code":"not_configured"/.test(l) && /mail not sent/.test(l)));
    assert.ok(!lines.some((l) => l.includes('ann@example.org')), 'no address in the log');
  } finally {
    await off.close();
  }
});
