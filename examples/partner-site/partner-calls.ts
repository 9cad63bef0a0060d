// The partner's server-side calls of the ticketing API, made with the SDK (packages/sdk): the
// client holds the client-credentials token (cached, refreshed once on 401 invalid_token), gives
// each creation an Idempotency-Key kept across retries, and retries network errors, 5xx and 429.
// The client secret never leaves this server.
import { TicketingClient, type CheckoutSession } from '../../packages/sdk/src/index.ts';

export interface PartnerCallsOptions {
  /** API_URL of the service, e.g. http://127.0.0.1:4000 */
  apiUrl: string;
  clientId: string;
  clientSecret: string;
}

export function createPartnerCalls(options: PartnerCallsOptions) {
  const client = new TicketingClient({
    baseUrl: options.apiUrl,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    userAgent: 'demo-running-club/1.0',
  });
  return {
    client,
    /** A session for the modal on `embedOrigin` (this site's own origin). */
    createEmbeddedSession(input: {
      eventId: string;
      embedOrigin: string;
      clientReferenceId?: string;
      prefill?: { buyer_name?: string; buyer_email?: string; buyer_phone?: string };
    }): Promise<CheckoutSession> {
      return client.checkoutSessions.create({
        event_id: input.eventId,
        ui_mode: 'embedded',
        embed_origin: input.embedOrigin,
        ...(input.clientReferenceId && { client_reference_id: input.clientReferenceId }),
        ...(input.prefill && { prefill: input.prefill }),
      });
    },
    /** A session for the full-page hosted checkout, coming back to `returnOrigin`. */
    createRedirectSession(input: { eventId: string; returnOrigin: string; clientReferenceId?: string }) {
      return client.checkoutSessions.create({
        event_id: input.eventId,
        on_success_url: `${input.returnOrigin}/thanks?session_id={CHECKOUT_SESSION_ID}`,
        on_cancel_url: `${input.returnOrigin}/`,
        ...(input.clientReferenceId && { client_reference_id: input.clientReferenceId }),
      });
    },
    readSession(sessionId: string) {
      return client.checkoutSessions.get(sessionId);
    },
    /** The first event on sale with a ticket to pay for (so the demo reaches mobile money), else the first. */
    async defaultEventId(): Promise<string | null> {
      let first: string | null = null;
      for await (const event of client.events.list()) {
        first ??= event.event_id;
        const detail = await client.events.get(event.event_id);
        if (detail.ticket_types.some((t) => !t.is_free)) return event.event_id;
      }
      return first;
    },
  };
}

export type PartnerCalls = ReturnType<typeof createPartnerCalls>;
