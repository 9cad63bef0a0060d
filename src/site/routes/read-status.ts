// GET /checkout/<session_id>/status.json: what the wait screen polls. No personal data.
import type { AppContext } from '../../context.ts';
import { findCheckoutSessionById } from '../../checkout/index.ts';
import { notFound, sendError } from '../../platform/index.ts';
import { loadSessionPayment } from '../place-order.ts';
import { framePolicyFor, NO_FRAMING, setPageHeaders } from '../security-headers.ts';
import { promptSecondsLeft, secondsLeft } from '../views/status-pages.ts';
import type { PageHandler, SessionParams } from './page-replies.ts';

export function readStatus(ctx: AppContext): PageHandler {
  return async (request, reply) => {
    const { sessionId } = request.params as SessionParams;
    const session = await findCheckoutSessionById(ctx.database.db, sessionId);
    setPageHeaders(reply, session ? framePolicyFor(session) : NO_FRAMING);
    if (!session) return sendError(request, reply, notFound('checkout session'));
    const { order, attempt } = await loadSessionPayment(ctx.database.db, session);
    const now = ctx.clock.now();
    return reply.type('application/json; charset=utf-8').send({
      order_status: order?.status ?? null,
      failure_kind: order?.failureKind ?? null,
      hold_expires_at: order?.status === 'pending' ? (order.holdExpiresAt?.toISOString() ?? null) : null,
      seconds_left: order ? secondsLeft(order, now) : 0,
      attempt_status: attempt?.status ?? null,
      prompt_seconds_left: promptSecondsLeft(attempt, now),
    });
  };
}
