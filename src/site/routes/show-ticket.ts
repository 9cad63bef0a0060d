// GET /tickets/<token>: a runner's ticket page, and GET /tickets/sw.js, the service worker that
// keeps it for offline use. A token of the wrong shape is refused unread; an unknown or void one,
// or one whose registration was cancelled, is the same 404 page; one voided by a transfer of its
// place says so (410, naming no one), and the worker forgets its kept copy.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { findEvent } from '../../events/index.ts';
import {
  findTransferredTicket,
  findValidTicket,
  isTicketToken,
  ticketPagePath,
} from '../../tickets/index.ts';
import { NO_FRAMING, setPageHeaders, type InlineParts } from '../security-headers.ts';
import { TICKET_PAGE_SCRIPT, TICKET_WORKER_JS } from '../ticket-worker.ts';
import {
  renderTicketNotFound,
  renderTicketPage,
  renderTicketTransferred,
  TICKET_PAGE_STYLES,
} from '../views/ticket-page.ts';
import { sendPage, type PageHandler } from './page-replies.ts';

/** What the ticket pages run inline, and their worker: the CSP allows exactly these. */
export const TICKET_PAGE_PARTS: InlineParts = {
  scripts: [TICKET_PAGE_SCRIPT],
  styles: [TICKET_PAGE_STYLES],
  worker: true,
};

/** The page's own absolute address, which its QR code carries. */
function ticketUrl(ctx: AppContext, token: string): string {
  return new URL(ticketPagePath(token), ctx.config.siteUrl).toString();
}

function notFoundTicket(reply: FastifyReply) {
  setPageHeaders(reply, NO_FRAMING, TICKET_PAGE_PARTS);
  return sendPage(reply, 404, renderTicketNotFound());
}

export function showTicket(ctx: AppContext): PageHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const { token } = request.params as { token: string };
    if (!isTicketToken(token)) return notFoundTicket(reply);
    const db = ctx.database.db;
    const found = await findValidTicket(db, token);
    if (!found) {
      const moved = await findTransferredTicket(db, token);
      const event = moved ? await findEvent(db, moved.eventId) : undefined;
      if (!event) return notFoundTicket(reply);
      setPageHeaders(reply, NO_FRAMING, TICKET_PAGE_PARTS);
      return sendPage(reply, 410, renderTicketTransferred(event, ticketPagePath(token)));
    }
    const event = await findEvent(db, found.eventId);
    if (!event) return notFoundTicket(reply);
    setPageHeaders(reply, NO_FRAMING, TICKET_PAGE_PARTS);
    const page = await renderTicketPage({ found: event, ticket: found.ticket, url: ticketUrl(ctx, token) });
    return sendPage(reply, 200, page);
  };
}

/** The worker's script: checked for a new version on every registration (no-cache), never framed. */
export async function serveTicketWorker(_request: FastifyRequest, reply: FastifyReply) {
  setPageHeaders(reply, NO_FRAMING);
  reply.header('Cache-Control', 'no-cache');
  return reply.type('text/javascript; charset=utf-8').send(TICKET_WORKER_JS);
}
