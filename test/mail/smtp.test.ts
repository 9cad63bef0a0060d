// Mail over SMTP, against a real SMTP server on loopback (smtp-server): with SMTP_URL set the
// service's mailer hands each mail over with its To, Subject and text, signs in with the URL's
// user and password, fails the send when the server refuses it or never answers, keeps nothing
// in the development mailbox, and logs one line per mail without its address, text or link.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Config } from '../../src/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createMailer, MailError, type Mailer } from '../../src/mail/mailer.ts';
import { listDevMail } from '../../src/mail/mailbox.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { parseMessage, startSilentServer, startSmtpReceiver, type SmtpReceiver } from './smtp-receiver.ts';

const FROM = 'Race Tickets <no-reply@tickets.example>';
const LINK = 'http://127.0.0.1:4002/password-reset/prt_Q8xkT3vLr7Hn2Wc9Zp4YbMa1';
const TEXT = `Hello Ann,\n\nTo choose a new password, open this link within an hour:\n${LINK}\n\nRace Tickets`;

let h: Harness;
let receiver: SmtpReceiver;

before(async () => {
  receiver = await startSmtpReceiver();
  h = await startHarness({ env: { SMTP_URL: receiver.url, MAIL_FROM: FROM } });
});
after(async () => {
  await h.close();
  await receiver.close();
});

const db = () => h.service.ctx.database.db;

/** h.config with another SMTP_URL. */
function withSmtp(url: string): Config {
  return { ...h.config, mail: { smtpUrl: url, from: FROM } };
}

/** A mailer of its own writing its log to `lines`, at info. */
function loggedMailer(config: Config, lines: string[], timeoutMs?: number): Mailer {
  const log = createLogger('info', { write: (line: string) => void lines.push(line) });
  return createMailer({
    config,
    database: h.service.ctx.database,
    log,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

function assertLogsNothingPrivate(lines: string[], secrets: string[]) {
  for (const line of lines) {
    for (const secret of [LINK, 'prt_Q8xkT3vLr7Hn2Wc9Zp4YbMa1', 'choose a new password', ...secrets]) {
      assert.ok(!line.includes(secret), `the log line ${line} shows ${secret}`);
    }
  }
}

describe('with SMTP_URL set', () => {
  test('the service hands a mail to the SMTP server with its To, Subject and text', async () => {
    const mailer = h.service.ctx.mailer;
    assert.equal(mailer.kind, 'smtp');
    await mailer.send({ to: 'ann@example.org', subject: 'Reset your password', text: TEXT });

    const mail = receiver.received.find((m) => m.to.includes('ann@example.org'));
    assert.ok(mail, 'the server received the mail');
    assert.deepEqual(mail.to, ['ann@example.org']);
    assert.equal(mail.from, 'no-reply@tickets.example');
    const { headers, body } = parseMessage(mail.raw);
    assert.equal(headers.get('to'), 'ann@example.org');
    assert.equal(headers.get('subject'), 'Reset your password');
    assert.match(headers.get('from') ?? '', /no-reply@tickets\.example/);
    assert.match(headers.get('message-id') ?? '', /^<mail_[0-9A-Za-z]{24}@tickets\.example>$/);
    assert.match(headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(body, TEXT);
    assert.deepEqual(await listDevMail(db()), [], 'nothing is kept in the development mailbox');
  });

  test('sends the html part alongside the text when given', async () => {
    await h.service.ctx.mailer.send({
      to: 'bob@example.org',
      subject: 'Welcome',
      text: 'Welcome, Bob.',
      html: '<p>Welcome, <b>Bob</b>.</p>',
    });
    const mail = receiver.received.find((m) => m.to.includes('bob@example.org'));
    assert.ok(mail, 'the server received the mail');
    assert.match(parseMessage(mail.raw).headers.get('content-type') ?? '', /^multipart\/alternative/);
    assert.match(mail.raw, /Content-Type: text\/plain/);
    assert.match(mail.raw, /Content-Type: text\/html/);
    assert.match(mail.raw, /<p>Welcome, <b>Bob<\/b>\.<\/p>/);
  });

  test('signs in with the user and password of SMTP_URL, and fails with a wrong password', async () => {
    const credentials = { user: 'mailer', pass: 's3cret pass:word' };
    const guarded = await startSmtpReceiver({ credentials });
    const lines: string[] = [];
    try {
      const mailer = loggedMailer(withSmtp(guarded.url), lines);
      await mailer.send({ to: 'cleo@example.org', subject: 'Reset your password', text: TEXT });
      assert.equal(guarded.received.length, 1);
      assert.deepEqual(guarded.received[0]!.to, ['cleo@example.org']);
      await mailer.close();

      const wrong = guarded.url.replace(encodeURIComponent(credentials.pass), 'wrong');
      const refused = loggedMailer(withSmtp(wrong), lines);
      await assert.rejects(
        refused.send({ to: 'cleo@example.org', subject: 'Reset your password', text: TEXT }),
        (err: unknown) => err instanceof MailError && err.code === 'send_failed',
      );
      await refused.close();
      assert.equal(guarded.received.length, 1, 'nothing more arrived');
      assertLogsNothingPrivate(lines, ['cleo@example.org', 's3cret', encodeURIComponent(credentials.pass)]);
    } finally {
      await guarded.close();
    }
  });

  test('a server that refuses the recipient makes send reject, and nothing is kept', async () => {
    const refusing = await startSmtpReceiver({ refuseRecipients: true });
    const lines: string[] = [];
    try {
      const mailer = loggedMailer(withSmtp(refusing.url), lines);
      assert.equal(mailer.kind, 'smtp');
      const error: unknown = await mailer
        .send({ to: 'dan@example.org', subject: 'Reset your password', text: TEXT })
        .then(
          () => assert.fail('send resolved'),
          (err: unknown) => err,
        );
      assert.ok(error instanceof MailError);
      assert.equal(error.code, 'send_failed');
      assert.equal((error.cause as { responseCode?: number }).responseCode, 550);
      await mailer.close();
      // A caller logging the error, as the password reset page does, shows no address either.
      createLogger('info', { write: (line: string) => void lines.push(line) }).warn(
        { err: error },
        'reset mail',
      );
      assert.ok(lines.some((l) => l.includes('"reset mail"') && l.includes('550')));
      assert.deepEqual(refusing.received, [], 'the server kept no mail');
      assert.deepEqual(await listDevMail(db()), [], 'nothing is kept in the development mailbox');

      const failed = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'mail not sent');
      assert.equal(failed.length, 1, 'one log line for the failed mail');
      assert.equal(failed[0].smtp_response_code, 550);
      assert.equal(failed[0].to_domain, 'example.org');
      assert.match(failed[0].mail_id, /^mail_/);
      assertLogsNothingPrivate(lines, ['dan@example.org']);
    } finally {
      await refusing.close();
    }
  });

  test('a server that never answers fails the send after the timeout instead of holding it', async () => {
    const silent = await startSilentServer();
    try {
      const mailer = loggedMailer(withSmtp(silent.url), [], 300);
      await assert.rejects(
        mailer.send({ to: 'eve@example.org', subject: 'Reset your password', text: TEXT }),
        (err: unknown) => err instanceof MailError && err.code === 'timeout',
      );
      await mailer.close();
    } finally {
      await silent.close();
    }
  });

  test('logs one line per mail sent, with its id and the recipient domain only', async () => {
    const lines: string[] = [];
    const mailer = loggedMailer(withSmtp(receiver.url), lines);
    await mailer.send({ to: 'fay@example.net', subject: 'Reset your password', text: TEXT });
    await mailer.send({ to: 'gus@example.net', subject: 'Reset your password', text: TEXT });
    await mailer.close();
    const sent = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'mail sent');
    assert.equal(sent.length, 2);
    for (const line of sent) {
      assert.equal(line.kind, 'smtp');
      assert.equal(line.to_domain, 'example.net');
      assert.equal(line.smtp_response_code, 250);
      assert.match(line.mail_id, /^mail_[0-9A-Za-z]{24}$/);
    }
    assertLogsNothingPrivate(lines, ['fay@example.net', 'gus@example.net']);
  });
});
