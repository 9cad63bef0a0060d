// /dev/mailbox and /dev/mailbox/:id: the mail the service kept instead of sending, in development
// without SMTP_URL. Never in production, and 404 whenever the mailer is not the mailbox.
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { findDevMail, listDevMail, type DevMailRow } from '../../mail/index.ts';
import { html, type Html } from '../../platform/index.ts';
import { PageError } from '../app-access.ts';
import { optionalViewer, sendPage, type Handler } from '../replies.ts';
import { formatTime } from '../views/fields.ts';
import { page } from '../views/layout.ts';
import { paramsOf } from '../app-input.ts';

const MailParams = Type.Object({ id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,100}$' }) });

function mailboxOpen(ctx: AppContext): boolean {
  return ctx.config.env !== 'production' && ctx.mailer.kind === 'mailbox';
}

/** The mail's text with links to this app made clickable; everything else stays escaped text. */
function linkedText(ctx: AppContext, text: string): Html {
  const origin = ctx.config.appUrl.origin;
  const parts = text.split(/(https?:\/\/[^\s<>"']+)/);
  return html`${parts.map((part, i) =>
    i % 2 === 1 && part.startsWith(`${origin}/`) ? html`<a href="${part}">${part}</a>` : part,
  )}`;
}

function mailRow(mail: DevMailRow): Html {
  return html`<tr>
    <td>${formatTime(mail.createdAt)}</td>
    <td>${mail.to}</td>
    <td><a href="/dev/mailbox/${mail.id}">${mail.subject || '(no subject)'}</a></td>
  </tr>`;
}

export function showMailbox(ctx: AppContext): Handler {
  return async (request, reply) => {
    if (!mailboxOpen(ctx)) throw new PageError('not_found', 'mailbox closed');
    const mails = await listDevMail(ctx.database.db, 50);
    const main = html`<h1>Development mailbox</h1>
      <p class="notice warn">
        Development only: without SMTP_URL, mail is kept here instead of being sent. Production never shows
        this page.
      </p>
      ${
        mails.length === 0
          ? html`<p>No mail yet.</p>`
          : html`<div class="table-wrap">
              <table>
                <caption class="muted">
                  Newest first, the last 50
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Sent</th>
                    <th scope="col">To</th>
                    <th scope="col">Subject</th>
                  </tr>
                </thead>
                <tbody>
                  ${mails.map(mailRow)}
                </tbody>
              </table>
            </div>`
      }`;
    const viewer = await optionalViewer(ctx, request);
    return sendPage(reply, 200, page({ title: 'Development mailbox', main, viewer }));
  };
}

export function showMail(ctx: AppContext): Handler {
  return async (request, reply) => {
    if (!mailboxOpen(ctx)) throw new PageError('not_found', 'mailbox closed');
    const { id } = paramsOf(request, MailParams);
    const mail = await findDevMail(ctx.database.db, id);
    if (!mail) throw new PageError('not_found', 'no such mail');
    const main = html`<h1>${mail.subject || '(no subject)'}</h1>
      <dl class="facts panel">
        <dt>To</dt>
        <dd>${mail.to}</dd>
        <dt>Sent</dt>
        <dd>${formatTime(mail.createdAt)}</dd>
      </dl>
      <pre class="mail">${linkedText(ctx, mail.text)}</pre>
      <p><a href="/dev/mailbox">Back to the mailbox</a></p>`;
    const viewer = await optionalViewer(ctx, request);
    return sendPage(reply, 200, page({ title: mail.subject || 'Mail', main, viewer }));
  };
}
