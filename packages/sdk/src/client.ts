// TicketingClient: one per set of client credentials, shared by the whole server (it holds the
// token cache). See README.md for each feature.
import { checkoutSessionsResource, eventsResource, ordersResource } from './resources.ts';
import { Transport, type TransportOptions } from './transport.ts';
import { webhooks } from './webhooks.ts';

export type TicketingClientOptions = TransportOptions;

export class TicketingClient {
  readonly events: ReturnType<typeof eventsResource>;
  readonly checkoutSessions: ReturnType<typeof checkoutSessionsResource>;
  readonly orders: ReturnType<typeof ordersResource>;
  readonly webhooks = webhooks;
  readonly #transport: Transport;

  constructor(options: TicketingClientOptions) {
    this.#transport = new Transport(options);
    this.events = eventsResource(this.#transport);
    this.checkoutSessions = checkoutSessionsResource(this.#transport);
    this.orders = ordersResource(this.#transport);
  }

  /** The current access token (fetched when none is cached), for calls the SDK does not cover. */
  accessToken(): Promise<string> {
    return this.#transport.tokens.get();
  }
}
