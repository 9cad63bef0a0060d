// Where the buyer goes once a card payment has started: a top-level checkout to the provider's card
// page (its address is on the attempt), an embedded one to the wait screen, whose link opens the
// card page in a new tab (the provider refuses to be framed; the frame keeps watching the order).
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { OrderRow } from '../../orders/index.ts';
import { latestAttempt } from '../../payments/index.ts';
import { isOpenAttempt } from '../place-order.ts';
import { checkoutPath } from '../views/page-parts.ts';
import { seeOther, type Loaded } from './page-replies.ts';

export async function sendToCardPage(ctx: AppContext, reply: FastifyReply, loaded: Loaded, order: OrderRow) {
  const wait = checkoutPath(loaded.session.id, '/pay');
  if (loaded.session.uiMode === 'embedded') return seeOther(reply, wait);
  const attempt = await latestAttempt(ctx.database.db, order.id);
  const page = isOpenAttempt(attempt) ? attempt?.redirectUrl : null;
  return seeOther(reply, page ?? wait);
}
