// How the checkout's handlers answer: an HTML page, a 303 to another page, and the session every
// page of /checkout/<session_id> starts from (a 404 page when there is none).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { findCheckoutSessionById, sessionStatus } from '../../checkout/index.ts';
import type { AppContext } from '../../context.ts';
import { findEvent, isRegistrationOpen, type EventWithTickets } from '../../events/index.ts';
import { clientDisplayName } from '../../auth/index.ts';
import { firstHoldEnds, loadOrderOut, type OrderRow } from '../../orders/index.ts';
import { continueStoredTrace, type FieldError } from '../../platform/index.ts';
import { issueTickets, ticketPagePath } from '../../tickets/index.ts';
import { STAGES, stageOf, type Stage } from '../checkout-form.ts';
import { framePolicyFor, NO_FRAMING, setPageHeaders } from '../security-headers.ts';
import { preferLocale } from '../messages/current.ts';
import { renderFormPage, type FormView } from '../views/form-page.ts';
import type { PageSession } from '../views/page-parts.ts';
import { anyOnlyHeld } from '../views/steps/tickets-step.ts';
import { renderConfirmationPage, renderNotFoundPage } from '../views/end-pages.ts';

const HTML = 'text/html; charset=utf-8';

export type PageHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

export interface SessionParams {
  sessionId: string;
}

/** The session a page is for, its event, and the session's status at `now`. */
export interface Loaded {
  session: PageSession;
  found: EventWithTickets;
  status: string;
  now: Date;
}

export function sendPage(reply: FastifyReply, status: number, page: string) {
  return reply.code(status).type(HTML).send(page);
}

export function seeOther(reply: FastifyReply, location: string) {
  return reply.redirect(location, 303);
}

/** The session and its event, or a 404 page already sent. Sets the page headers. */
export async function loadSession(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<Loaded | null> {
  const db = ctx.database.db;
  const { sessionId } = request.params as SessionParams;
  const session = await findCheckoutSessionById(db, sessionId);
  const found = session ? await findEvent(db, session.eventId) : undefined;
  if (!session || !found) {
    setPageHeaders(reply, NO_FRAMING);
    await sendPage(reply, 404, renderNotFoundPage());
    return null;
  }
  setPageHeaders(reply, framePolicyFor(session));
  preferLocale(session.locale);
  const now = ctx.clock.now();
  const partnerName = await clientDisplayName(db, session.apiClientId);
  return { session: { ...session, partnerName }, found, status: sessionStatus(session, now), now };
}

/**
 * A handler that works on the session's order (places it, sends or closes its prompt, cancels it):
 * once the session is loaded (a 404 page when there is none), `handle` runs in the trace of the
 * partner's request that created the session (checkout_sessions.trace_context), in a span `name`
 * linked to this request's own, so that the order is followed in one trace whichever browser
 * takes its steps (platform/tracing.ts continueStoredTrace). Tracing off, `handle` runs as it is.
 */
export function sessionStep(
  ctx: AppContext,
  name: string,
  handle: (loaded: Loaded, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): PageHandler {
  return async (request, reply) => {
    const loaded = await loadSession(ctx, request, reply);
    if (!loaded) return reply;
    return continueStoredTrace(loaded.session.traceContext, name, () => handle(loaded, request, reply));
  };
}

/** Whether the event still takes registrations (open, not over, public, within its dates). */
export function saleOpen(loaded: Loaded): boolean {
  const { event } = loaded.found;
  return (
    event.status === 'open' &&
    event.endsAt.getTime() > loaded.now.getTime() &&
    event.visibility !== 'private' &&
    isRegistrationOpen(event, loaded.now)
  );
}

/** The first step holding one of the errors, if any. */
export function firstErrorStage(errors: FieldError[]): Stage | null {
  const index = Math.min(...errors.map((e) => STAGES.indexOf(stageOf(e.field))));
  return STAGES[index] ?? null;
}

/** The form again, at the step with the first error unless told otherwise. */
export async function sendFormPage(
  ctx: AppContext,
  reply: FastifyReply,
  loaded: Loaded,
  view: Partial<FormView> & Pick<FormView, 'values'>,
) {
  const { found, now } = loaded;
  const errors = view.errors ?? [];
  const heldUntil = anyOnlyHeld(found, now)
    ? await firstHoldEnds(ctx.database.db, found.event.id, now)
    : undefined;
  return sendPage(
    reply,
    view.status ?? 200,
    renderFormPage({
      session: loaded.session,
      found,
      now,
      ...(heldUntil && { heldUntil }),
      ...view,
      errors,
      stage: view.stage ?? firstErrorStage(errors) ?? 'tickets',
    }),
  );
}

export async function sendConfirmation(
  ctx: AppContext,
  reply: FastifyReply,
  confirmed: { loaded: Loaded; order: OrderRow; justPaid: boolean; tab?: boolean },
) {
  const { loaded, order, justPaid, tab = false } = confirmed;
  const db = ctx.database.db;
  // Issued here too, so that an order paid before tickets existed gets them when it is shown.
  const [out, issued] = await Promise.all([
    loadOrderOut(db, order),
    issueTickets(db, order.id, ctx.clock.now()),
  ]);
  const tickets = issued
    .filter((t) => t.status === 'valid')
    .map((t) => ({ ...t, url: ticketPagePath(t.token) }));
  return sendPage(
    reply,
    200,
    renderConfirmationPage({
      session: loaded.session,
      found: loaded.found,
      order: out,
      justPaid,
      tickets,
      tab,
    }),
  );
}
