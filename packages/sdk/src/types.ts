// The SDK's public types, all taken from the generated OpenAPI types (openapi.ts), so they follow
// the API's route schemas; only the webhook payloads are written here (the document has none).
import type { paths } from './openapi.ts';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Data<T> = Json<T> extends { data: infer D } ? D : never;
type Body<T> = T extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
type Query<T> = T extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type TokenResponse = Json<paths['/v1/oauth/token']['post']['responses'][200]>;

export type EventPage = Data<paths['/v1/events']['get']['responses'][200]>;
export type EventSummary = EventPage['events'][number];
export type Event = Data<paths['/v1/events/{eventId}']['get']['responses'][200]>;
export type EventListParams = Query<paths['/v1/events']['get']>;

export type CheckoutSessionCreateParams = Body<paths['/v1/checkout-sessions']['post']>;
export type CheckoutSession = Data<paths['/v1/checkout-sessions']['post']['responses'][201]>;
export type CheckoutSessionRead = Data<paths['/v1/checkout-sessions/{sessionId}']['get']['responses'][200]>;

export type OrderCreateParams = Body<paths['/v1/orders']['post']>;
export type OrderPage = Data<paths['/v1/orders']['get']['responses'][200]>;
export type OrderListParams = Query<paths['/v1/orders']['get']>;
export type Order = Data<paths['/v1/orders/{orderId}']['get']['responses'][200]>;
export type OrderPayParams = Body<paths['/v1/orders/{orderId}/pay']['post']>;
export type OrderPayment = Data<paths['/v1/orders/{orderId}/pay']['post']['responses'][202]>;
export type OrderRefundParams = Body<paths['/v1/orders/{orderId}/refunds']['post']>;
export type Refund = Data<paths['/v1/orders/{orderId}/refunds']['post']['responses'][201]>;

/** `order.paid`: data is the Order as GET /v1/orders/{id} returned it when it was paid. */
export interface OrderPaidEvent {
  type: 'order.paid';
  timestamp: string;
  data: Order;
}

/** What an order.refunded event says this refund returned to the buyer. */
export interface OrderRefund {
  /** the refund, as orders.refund answered it */
  id: string;
  amount_minor: number;
  currency: string;
  /** momo, airtel or mpesa (M-Pesa returns whole payments only) */
  method: string;
  /** the reason given, or null */
  reason: string | null;
  /** the runners whose places it returned; [] for an amount alone */
  registration_ids: string[];
  refunded_at: string;
  /** the network's id of the refund, or null */
  provider_reference: string | null;
}

/**
 * `order.refunded`, once per refund that succeeded: data is the Order (status refunded once
 * refunded_total reaches total, else paid) with this refund.
 */
export interface OrderRefundedEvent {
  type: 'order.refunded';
  timestamp: string;
  data: Order & { refund: OrderRefund };
}

/** `test`: sent on demand from the organizer app or admin API. */
export interface TestEvent {
  type: 'test';
  timestamp: string;
  data: { endpoint_id: string; message: string };
}

export type WebhookEvent = OrderPaidEvent | OrderRefundedEvent | TestEvent;

/** Options of every call. */
export interface RequestOptions {
  /** Idempotency-Key of a creation; default a random UUID, kept across this call's retries. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}
