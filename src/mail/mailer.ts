// Outgoing mail (password reset links and the like): over SMTP through nodemailer when SMTP_URL
// is set. Without it, development and tests keep each mail in dev_mail for the mailbox page, and
// production sends none: its sends fail, so that no caller believes a mail went out.
import { createTransport } from 'nodemailer';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { newId, type Database } from '../platform/index.ts';
import { keepDevMail } from './mailbox.ts';
import {
  checkMailMessage,
  failureFields,
  MailError,
  mailDomain,
  safeCause,
  type MailMessage,
} from './mail-message.ts';

export type { MailMessage } from './mail-message.ts';
export { MailError } from './mail-message.ts';

declare module '../context.ts' {
  interface AppContext {
    /** built at start by the composition root (service.ts) */
    readonly mailer: Mailer;
  }
}

export interface Mailer {
  /** smtp: SMTP_URL set; mailbox: no SMTP_URL outside production (kept in dev_mail); none: production without SMTP_URL */
  readonly kind: 'smtp' | 'mailbox' | 'none';
  /** rejects when the mail could not be handed over (SMTP error, or kind none) */
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

/** A dead or stalled SMTP server fails the send after this long, rather than holding its caller. */
const SMTP_SEND_TIMEOUT_MS = 10_000;

export interface CreateMailerOptions {
  config: Config;
  database: Database;
  log: Logger;
  /** how long one SMTP send may take in all (default SMTP_SEND_TIMEOUT_MS) */
  timeoutMs?: number;
}

/** How one kind of mailer hands a checked message over; returns what its log line adds. */
interface MailTransport {
  deliver(id: string, message: MailMessage): Promise<Record<string, unknown>>;
  close(): void;
}

export function createMailer(options: CreateMailerOptions): Mailer {
  const { config, database, log } = options;
  const smtpUrl = config.mail.smtpUrl;
  if (smtpUrl) {
    // Parsed here first: a bad URL fails the start naming SMTP_URL, never showing its password.
    const endpoint = smtpEndpoint(smtpUrl);
    const transport = smtpTransport(smtpUrl, config.mail.from, options.timeoutMs ?? SMTP_SEND_TIMEOUT_MS);
    log.info(endpoint, 'mail goes over SMTP');
    return buildMailer('smtp', transport, log);
  }
  if (config.env !== 'production') {
    log.info('mail is kept in the development mailbox (APP_URL/dev/mailbox): SMTP_URL is not set');
    return buildMailer('mailbox', mailboxTransport(database), log);
  }
  log.warn('mail is off: SMTP_URL is not set, and production keeps no mailbox; every send fails');
  return buildMailer('none', noTransport(), log);
}

/** Checking, logging and shutdown, the same for every kind. */
function buildMailer(kind: Mailer['kind'], transport: MailTransport, log: Logger): Mailer {
  const inflight = new Set<Promise<void>>();
  let closing: Promise<void> | null = null;

  async function sendOne(message: MailMessage): Promise<void> {
    const id = newId('mail');
    // The recipient's domain only: the address is personal data, and the body may carry a link
    // that signs someone in.
    const fields = { mail_id: id, kind, to_domain: mailDomain(message?.to) };
    try {
      if (closing) throw new MailError('closed', 'the mailer is closed');
      checkMailMessage(message);
      const detail = await transport.deliver(id, message);
      log.info(
        { ...fields, ...detail },
        kind === 'mailbox' ? 'mail kept in the development mailbox' : 'mail sent',
      );
    } catch (err) {
      const failure = asMailError(kind, err);
      log.warn({ ...fields, ...failureFields(failure) }, 'mail not sent');
      throw failure;
    }
  }

  return {
    kind,
    send(message) {
      const sending = sendOne(message);
      inflight.add(sending);
      const forget = () => inflight.delete(sending);
      sending.then(forget, forget);
      return sending;
    },
    close() {
      closing ??= (async () => {
        await Promise.allSettled([...inflight]);
        transport.close();
      })();
      return closing;
    },
  };
}

function asMailError(kind: Mailer['kind'], err: unknown): MailError {
  if (err instanceof MailError) return err;
  if (kind !== 'smtp') {
    return new MailError('send_failed', 'the development mailbox could not keep the mail', {
      cause: safeCause(err, false),
    });
  }
  const code = (err as { code?: unknown } | null)?.code;
  // nodemailer names its timeouts ETIMEDOUT, or CONNECTION_, GREETING_ and SOCKET_TIMEOUT.
  const timedOut = typeof code === 'string' && /TIMEOUT|ETIMEDOUT/.test(code);
  return new MailError(
    timedOut ? 'timeout' : 'send_failed',
    timedOut ? 'the SMTP server did not answer in time' : 'the SMTP server did not take the mail',
    { cause: safeCause(err, true) },
  );
}

function smtpTransport(smtpUrl: string, from: string, timeoutMs: number): MailTransport {
  // nodemailer reads the URL itself (host, port, user and password, and its own options such as
  // ?requireTLS=true); each phase of a send is bounded, and the whole send by withDeadline.
  const transporter = createTransport({
    url: smtpUrl,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    dnsTimeout: timeoutMs,
  });
  const domain = mailDomain(from) ?? 'localhost';
  return {
    async deliver(id, message) {
      const sending = transporter.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        ...(message.html !== undefined && { html: message.html }),
        // Our id in the Message-ID, so a bounce or the server's log leads back to this log line.
        messageId: `<${id}@${domain}>`,
      });
      const info = await withDeadline(sending, timeoutMs);
      return { smtp_response_code: Number.parseInt(String(info.response ?? ''), 10) || undefined };
    },
    close() {
      transporter.close();
    },
  };
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new MailError('timeout', `the SMTP server did not take the mail within ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

function mailboxTransport(database: Database): MailTransport {
  return {
    async deliver(id, message) {
      await keepDevMail(database.db, { id, ...message });
      return {};
    },
    close() {},
  };
}

function noTransport(): MailTransport {
  return {
    async deliver() {
      throw new MailError(
        'not_configured',
        'mail is off: SMTP_URL is not set, and production keeps no development mailbox',
      );
    },
    close() {},
  };
}

/** Where mail goes, as logged: host and port, never the user or password of the URL. */
function smtpEndpoint(smtpUrl: string): { smtp_host: string; smtp_port: string } {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    // The value itself may hold a password: the error names the variable only.
    throw new Error('SMTP_URL is not a valid URL');
  }
  const secure = url.protocol === 'smtps:';
  return { smtp_host: url.hostname, smtp_port: url.port || (secure ? '465' : '587') };
}
