// What the order page shows besides the order's own rows: the webhook deliveries its partner was
// sent (latest few, each linked to its endpoint's delivery log) and its payments waiting for a
// refund (paid after expiry, or a second payment).
import type { AppContext } from '../../context.ts';
import { paymentsNeedingRefundOfOrder } from '../../payments/index.ts';
import { listDeliveriesAbout } from '../../webhooks/index.ts';
import type { OrderActivity } from '../views/order-activity.ts';
import { deliveryLogHref } from './webhook-deliveries.ts';

/** Deliveries shown on an order page; an order has a handful (order.paid, order.refunded per endpoint). */
const ORDER_DELIVERIES_SHOWN = 50;

export async function loadOrderActivity(
  ctx: AppContext,
  organizationId: string,
  orderId: string,
): Promise<OrderActivity> {
  const db = ctx.database.db;
  const [webhooks, refundsDue] = await Promise.all([
    listDeliveriesAbout(db, { organizationId, objectId: orderId, limit: ORDER_DELIVERIES_SHOWN }),
    paymentsNeedingRefundOfOrder(db, organizationId, orderId),
  ]);
  return {
    // Every member may read an endpoint's delivery log (its route's access is "member").
    deliveries: webhooks.deliveries.map((d) => ({ ...d, logHref: deliveryLogHref(ctx, d.delivery) })),
    moreDeliveries: webhooks.hasMore,
    shownLimit: ORDER_DELIVERIES_SHOWN,
    refundsDue,
  };
}
