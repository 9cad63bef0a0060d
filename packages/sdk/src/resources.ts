// The API's resources as typed methods over the transport: events, checkout sessions, orders.
import { paginate } from './pagination.ts';
import type { Transport } from './transport.ts';
import type {
  CheckoutSession,
  CheckoutSessionCreateParams,
  CheckoutSessionRead,
  Event,
  EventListParams,
  EventPage,
  EventSummary,
  Order,
  OrderCreateParams,
  OrderListParams,
  OrderPage,
  OrderPayParams,
  OrderPayment,
  OrderRefundParams,
  Refund,
  RequestOptions,
} from './types.ts';

const id = (value: string) => encodeURIComponent(value);

export function eventsResource(transport: Transport) {
  const page = (params: EventListParams = {}, options: RequestOptions = {}) =>
    transport.call<EventPage>('GET', '/events', { query: params, signal: options.signal });
  return {
    /** One page of events on sale; pass `cursor: page.next_cursor` for the next. */
    page,
    /** Every event on sale, page after page: `for await (const event of client.events.list())`. */
    list(params: EventListParams = {}, options: RequestOptions = {}): AsyncGenerator<EventSummary> {
      return paginate(
        (cursor) => page({ ...params, cursor }, options),
        (p) => p.events,
        params.cursor,
      );
    },
    get(eventId: string, options: RequestOptions = {}) {
      return transport.call<Event>('GET', `/events/${id(eventId)}`, { signal: options.signal });
    },
  };
}

export function checkoutSessionsResource(transport: Transport) {
  return {
    /** A hosted (redirect) or embedded checkout session; idempotent across retries. */
    create(params: CheckoutSessionCreateParams, options: RequestOptions = {}) {
      return transport.call<CheckoutSession>('POST', '/checkout-sessions', { body: params, ...options });
    },
    get(sessionId: string, options: RequestOptions = {}) {
      return transport.call<CheckoutSessionRead>('GET', `/checkout-sessions/${id(sessionId)}`, {
        signal: options.signal,
      });
    },
  };
}

export function ordersResource(transport: Transport) {
  const page = (params: OrderListParams = {}, options: RequestOptions = {}) =>
    transport.call<OrderPage>('GET', '/orders', { query: params, signal: options.signal });
  return {
    page,
    /** Every order matching `params`, page after page. */
    list(params: OrderListParams = {}, options: RequestOptions = {}): AsyncGenerator<Order> {
      return paginate(
        (cursor) => page({ ...params, cursor }, options),
        (p) => p.orders,
        params.cursor,
      );
    },
    get(orderId: string, options: RequestOptions = {}) {
      return transport.call<Order>('GET', `/orders/${id(orderId)}`, { signal: options.signal });
    },
    /** An order held for the buyer (free orders are paid at once); idempotent across retries. */
    create(params: OrderCreateParams, options: RequestOptions = {}) {
      return transport.call<Order>('POST', '/orders', { body: params, ...options });
    },
    /** Starts a mobile money payment of a pending order. */
    pay(orderId: string, params: OrderPayParams, options: RequestOptions = {}) {
      return transport.call<OrderPayment>('POST', `/orders/${id(orderId)}/pay`, { body: params, ...options });
    },
    /**
     * Refunds a paid order: everything left ({}), some runners' places (registration_ids) or an
     * amount (amount_minor); answered pending, order.refunded says when it succeeded. Idempotent
     * across retries.
     */
    refund(orderId: string, params: OrderRefundParams = {}, options: RequestOptions = {}) {
      return transport.call<Refund>('POST', `/orders/${id(orderId)}/refunds`, { body: params, ...options });
    },
  };
}
