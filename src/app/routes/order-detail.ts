// GET /orders/:orderId: one order of the organization, its runners (details, bib, ticket), its
// refunds and its timeline (webhook deliveries included), with the runner, refund and erasure
// actions for owners and admins. An order of another organization, or none, is the same 404 page.
import { checkInsOf } from '../../checkin/index.ts';
import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { listApiClients } from '../../auth/index.ts';
import { findEvent } from '../../events/index.ts';
import { findOrder, registrationsOf } from '../../orders/index.ts';
import { attemptsOfOrder, refundsOfOrder } from '../../payments/index.ts';
import { can } from '../../members/index.ts';
import { bibNumbersOf } from '../../startlists/index.ts';
import { ticketPagePath, ticketsOfOrder } from '../../tickets/index.ts';
import type { RunnerRow } from '../views/order-runners.ts';
import { memberOf, PageError } from '../app-access.ts';
import { sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderOrder } from '../views/order-pages.ts';
import { confirmerOf } from '../views/payer-words.ts';
import { orderMailsOf } from './order-mails.ts';
import { loadOrderActivity } from './order-activity.ts';
import { OrderParams, paramsOf, queryOf } from '../app-input.ts';

const OrderQuery = Type.Object({
  refund: Type.Optional(Type.String({ maxLength: 20 })),
  runner: Type.Optional(Type.String({ maxLength: 30 })),
});

/** What a runner's form redirected back with. */
const RUNNER_NOTICES: Record<string, string> = {
  corrected: "The runner's details were saved.",
  transferred:
    'The place was transferred: its old ticket no longer works, a new one was issued, and both emails were sent.',
  transferred_mail_failed:
    'The place was transferred and a new ticket issued, but an email could not be sent: the reason is in the timeline below.',
};

/** The order page, with a refusal's message when a refund could not be asked. */
export async function orderPage(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  options: { status: number; problem: string | null },
) {
  const { organizationId, role } = memberOf(request);
  const { orderId } = paramsOf(request, OrderParams);
  const db = ctx.database.db;
  const order = await findOrder(db, organizationId, orderId);
  if (!order) throw new PageError('not_found', 'order');
  const [viewer, found, clients, regs, attempts, refunds, mails, activity, tickets] = await Promise.all([
    viewerOf(ctx, request),
    findEvent(db, order.eventId),
    listApiClients(db, organizationId),
    registrationsOf(db, [order.id]),
    attemptsOfOrder(db, order.id),
    refundsOfOrder(db, organizationId, order.id),
    orderMailsOf(ctx, request, order),
    loadOrderActivity(ctx, organizationId, order.id),
    ticketsOfOrder(db, order.id),
  ]);
  const query = queryOf(request, OrderQuery);
  const requested = query.refund === 'requested';
  const registrations = regs.get(order.id) ?? [];
  const ids = registrations.map((r) => r.id);
  const [bibs, checkIns] = await Promise.all([bibNumbersOf(db, ids), checkInsOf(db, organizationId, ids)]);
  const mayChange = can(role, 'runners');
  const runners: RunnerRow[] = registrations.map((registration) => {
    const ticket = tickets.find((t) => t.registrationId === registration.id);
    return {
      registration,
      bib: bibs.get(registration.id) ?? null,
      checkIn: checkIns.get(registration.id) ?? null,
      ticket: ticket
        ? {
            code: ticket.code,
            status: ticket.status,
            // the link opens the runner's ticket (their entry on race day): for those who may change runners
            url: mayChange ? new URL(ticketPagePath(ticket.token), ctx.config.siteUrl).toString() : null,
          }
        : null,
    };
  });
  const runnerNotice = RUNNER_NOTICES[query.runner ?? ''] ?? null;
  return sendPage(
    reply,
    options.status,
    renderOrder({
      viewer,
      order,
      runners: {
        order,
        event: found?.event ?? null,
        runners,
        mayChange,
        mayContact: can(role, 'buyer_contacts'),
        now: ctx.clock.now(),
      },
      eventName: found?.event.name ?? order.eventId,
      clientName: clients.find((c) => c.id === order.apiClientId)?.name ?? null,
      attempts,
      refunds,
      mails,
      activity,
      mayRefund: can(role, 'refunds'),
      mayErase: can(role, 'buyer_erasure'),
      notice: requested
        ? `The refund was sent to ${confirmerOf(order.paymentMethod ?? '')}. Its status shows below.`
        : runnerNotice,
      problem: options.problem,
    }),
  );
}

export function showOrder(ctx: AppContext): Handler {
  return (request, reply) => orderPage(ctx, request, reply, { status: 200, problem: null });
}
