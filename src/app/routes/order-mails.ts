// What the order page shows of its confirmation mails (views/order-mails.ts): the order's mails,
// whether the member may resend, and the outcome a resend redirected back with.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../context.ts';
import { listOrderMails } from '../../confirmations/index.ts';
import { can } from '../../members/index.ts';
import type { OrderRow } from '../../orders/index.ts';
import { memberOf } from '../app-access.ts';
import type { OrderMailsView } from '../views/order-mails.ts';
import { queryOf } from '../app-input.ts';

/** The order page's view of its confirmation mails, with the outcome a resend redirected with. */
const MailsQuery = Type.Object({ confirmation: Type.Optional(Type.String({ maxLength: 20 })) });

export async function orderMailsOf(
  ctx: AppContext,
  request: FastifyRequest,
  order: OrderRow,
): Promise<OrderMailsView> {
  const { organizationId, role } = memberOf(request);
  const resent = queryOf(request, MailsQuery).confirmation;
  return {
    mails: await listOrderMails(ctx.database.db, organizationId, order.id),
    mayResend: can(role, 'confirmation_resends'),
    resent: resent === 'sent' || resent === 'failed' ? resent : null,
  };
}
