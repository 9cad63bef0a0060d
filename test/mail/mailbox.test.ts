// The development mailbox: without SMTP_URL, in development and tests, the service keeps each mail
// in dev_mail (listed newest first, found by id) for APP_URL/dev/mailbox; in production without
// SMTP_URL the mailer is `none`: every send fails and nothing is kept. A message that is not one
// plain address with a one-line subject is refused by every kind, before anything is kept.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Config } from '../../src/config.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createMailer, MailError, type MailMessage, type Mailer } from '../../src/mail/mailer.ts';
import { DEV_MAIL_LIST_MAX, findDevMail, listDevMail } from '../../src/mail/mailbox.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

let h: Harness;

before(async () => {
  h = await startHarness();
});
after(async () => {
  await h.close();
});

const db = () => h.service.ctx.database.db;
const silent = createLogger('silent');

function mailerFor(config: Config, log = silent): Mailer {
  return createMailer({ config, database: h.service.ctx.database, log });
}

/** A tag unique to one test, put in its subjects, to find that test's mail among the rest. */
const newTag = () => randomBytes(4).toString('hex');

async function keptWith(tag: string) {
  return (await listDevMail(db(), DEV_MAIL_LIST_MAX)).filter((m) => m.subject.includes(tag));
}

function message(tag: string, overrides: Partial<MailMessage> = {}): MailMessage {
  return {
    to: 'ann@example.org',
    subject: `Reset your password ${tag}`,
    text: 'Open http://127.0.0.1:4002/password-reset/prt_abc to choose a new password.',
    ...overrides,
  };
}

describe('without SMTP_URL, in development and tests', () => {
  test('the service keeps each mail in dev_mail, listed newest first', async () => {
    const mailer = h.service.ctx.mailer;
    assert.equal(mailer.kind, 'mailbox');
    const tag = newTag();
    for (const n of [1, 2, 3]) {
      await mailer.send({ to: `runner${n}@example.org`, subject: `Mail ${n} ${tag}`, text: `Text ${n}` });
    }
    const kept = await keptWith(tag);
    assert.deepEqual(
      kept.map((m) => [m.subject, m.to, m.text, m.html]),
      [3, 2, 1].map((n) => [`Mail ${n} ${tag}`, `runner${n}@example.org`, `Text ${n}`, null]),
    );
    for (const mail of kept) {
      assert.match(mail.id, /^mail_[0-9A-Za-z]{24}$/);
      assert.ok(mail.createdAt instanceof Date);
    }
    assert.ok(kept[0]!.createdAt.getTime() > kept[2]!.createdAt.getTime(), 'the newest was kept last');
  });

  test('findDevMail finds one kept mail by its id, html included', async () => {
    const tag = newTag();
    await h.service.ctx.mailer.send(message(tag, { html: '<p>Open the <a href="#">link</a></p>' }));
    const [listed] = await keptWith(tag);
    assert.ok(listed);
    const found = await findDevMail(db(), listed.id);
    assert.deepEqual(found, listed);
    assert.equal(found?.html, '<p>Open the <a href="#">link</a></p>');
    assert.equal(found?.to, 'ann@example.org');
  });

  test('findDevMail finds nothing for an unknown or malformed id', async () => {
    for (const id of [
      `mail_${'x'.repeat(24)}`,
      'mail_',
      "mail_' OR '1'='1",
      `mail_${'a'.repeat(23)}\u0000`,
      'x'.repeat(10_000),
      '',
    ]) {
      assert.equal(await findDevMail(db(), id), undefined, `no mail for ${JSON.stringify(id.slice(0, 40))}`);
    }
  });

  test('listDevMail returns at most its limit, and refuses a limit out of range', async () => {
    const tag = newTag();
    const mailer = h.service.ctx.mailer;
    for (const n of [1, 2, 3]) await mailer.send(message(tag, { subject: `Limit ${n} ${tag}` }));
    const two = await listDevMail(db(), 2);
    assert.deepEqual(
      two.map((m) => m.subject),
      [`Limit 3 ${tag}`, `Limit 2 ${tag}`],
    );
    for (const limit of [0, -1, 1.5, DEV_MAIL_LIST_MAX + 1, Number.NaN]) {
      await assert.rejects(listDevMail(db(), limit), RangeError, `limit ${limit}`);
    }
  });

  test('NODE_ENV=development without SMTP_URL keeps mail too', async () => {
    const mailer = mailerFor({
      ...h.config,
      env: 'development',
      mail: { ...h.config.mail, smtpUrl: undefined },
    });
    assert.equal(mailer.kind, 'mailbox');
    const tag = newTag();
    await mailer.send(message(tag));
    assert.equal((await keptWith(tag)).length, 1);
    await mailer.close();
  });

  test('logs one line per mail kept, without its address or text', async () => {
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    const mailer = mailerFor(h.config, log);
    const tag = newTag();
    await mailer.send(message(tag, { to: 'zoe@example.com' }));
    await mailer.close();
    const kept = lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'mail kept in the development mailbox');
    assert.equal(kept.length, 1);
    assert.equal(kept[0].to_domain, 'example.com');
    assert.equal(kept[0].mail_id, (await keptWith(tag))[0]?.id);
    for (const line of lines) {
      for (const secret of ['zoe@example.com', 'prt_abc', 'choose a new password']) {
        assert.ok(!line.includes(secret), `the log line ${line} shows ${secret}`);
      }
    }
  });
});

describe('NODE_ENV=production', () => {
  const production = (smtpUrl: string | undefined): Config => ({
    ...h.config,
    env: 'production',
    mail: { ...h.config.mail, smtpUrl },
  });

  test('without SMTP_URL the mailer is none: send rejects and nothing is kept', async () => {
    const mailer = mailerFor(production(undefined));
    assert.equal(mailer.kind, 'none');
    const countBefore = (await listDevMail(db(), DEV_MAIL_LIST_MAX)).length;
    const tag = newTag();
    await assert.rejects(
      mailer.send(message(tag)),
      (err: unknown) => err instanceof MailError && err.code === 'not_configured',
    );
    assert.deepEqual(await keptWith(tag), []);
    assert.equal((await listDevMail(db(), DEV_MAIL_LIST_MAX)).length, countBefore);
    await mailer.close();
  });

  test('with SMTP_URL the mailer goes over SMTP', async () => {
    const mailer = mailerFor(production('smtp://mailer:secret@127.0.0.1:2525'));
    assert.equal(mailer.kind, 'smtp');
    await mailer.close();
  });
});

describe('refused messages', () => {
  test('a message that is not one plain address and a one-line subject is refused, and nothing is kept', async () => {
    const mailer = h.service.ctx.mailer;
    const tag = newTag();
    const countBefore = (await listDevMail(db(), DEV_MAIL_LIST_MAX)).length;
    const bad: Partial<MailMessage>[] = [
      { to: 'ann@example.org, eve@example.net' },
      { to: 'Ann <ann@example.org>' },
      { to: 'ann@example.org\r\nBcc: eve@example.net' },
      { to: 'not-an-address' },
      { to: '' },
      { subject: `Hello ${tag}\r\nBcc: eve@example.net` },
      { subject: '   ' },
      { text: 'nul \u0000 inside' },
      { html: '<p>\uD800</p>' },
    ];
    for (const overrides of bad) {
      await assert.rejects(
        mailer.send(message(tag, overrides)),
        (err: unknown) => err instanceof MailError && err.code === 'invalid_message',
        JSON.stringify(overrides),
      );
    }
    assert.deepEqual(await keptWith(tag), []);
    assert.equal((await listDevMail(db(), DEV_MAIL_LIST_MAX)).length, countBefore, 'nothing was kept');
  });

  test('a closed mailer refuses to send', async () => {
    const mailer = mailerFor(h.config);
    await mailer.close();
    const tag = newTag();
    await assert.rejects(
      mailer.send(message(tag)),
      (err: unknown) => err instanceof MailError && err.code === 'closed',
    );
    assert.deepEqual(await keptWith(tag), []);
  });
});
