// GET /checkout/return/<reference>: where a provider's hosted page (cards) sends the buyer back.
// The return only prompts a status query (noteReturn); the buyer lands on their checkout's payment
// page, which shows the confirmation once the provider confirmed, or waits for it.
import { findCheckoutSessionById } from '../../checkout/index.ts';
import type { AppContext } from '../../context.ts';
import { findOrder } from '../../orders/index.ts';
import { noteReturn } from '../../payments/index.ts';
import { renderNotFoundPage } from '../views/end-pages.ts';
import { checkoutPath } from '../views/page-parts.ts';
import { seeOther, sendPage, type PageHandler } from './page-replies.ts';

export function returnFromPayment(ctx: AppContext): PageHandler {
  return async (request, reply) => {
    const { reference } = request.params as { reference: string };
    const noted = await noteReturn(ctx, reference.slice(0, 64));
    const order = noted && (await findOrder(ctx.database.db, noted.organizationId, noted.orderId));
    if (!order?.checkoutSessionId) return sendPage(reply, 404, renderNotFoundPage());
    // An embedded checkout's buyer paid in a tab of their own (the card page refuses the frame):
    // its confirmation says the tab may be closed.
    const session = await findCheckoutSessionById(ctx.database.db, order.checkoutSessionId);
    const tab = session?.uiMode === 'embedded' ? '?tab=1' : '';
    return seeOther(reply, checkoutPath(order.checkoutSessionId, `/pay${tab}`));
  };
}
