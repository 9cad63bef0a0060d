// `ticketing trigger order.paid|order.refunded`: a sandbox order made and settled through the
// partner API with the partner's own client (as `listen` signs in), so that every webhook endpoint
// and every `listen` of the organization gets the event. It finds an event on sale (or takes
// --event), orders one ticket, pays it from the simulator's success number, waits for `paid`, and
// for order.refunded refunds it and waits for `refunded`. It refuses a service that takes real
// payments. docs/decisions/cli-trigger.md says why it goes this way.
import { parseArgs } from 'node:util';
import { ApiFailure, NetworkFailure } from '../admin-client.ts';
import { UsageError } from '../command.ts';
import {
  callPartnerApi,
  requestPartnerToken,
  PARTNER_FLAGS,
  startPartnerCommand,
  type PartnerIo,
  type PartnerCredentials,
} from '../partner-client.ts';

export const TRIGGER_USAGE =
  'trigger <order.paid|order.refunded> [--event <evt_...>] [--client-id <cli_...> --client-secret <sk_...>] [--api-url <url>]';

const TYPES = ['order.paid', 'order.refunded'] as const;
type TriggerType = (typeof TYPES)[number];

/** What each scope is needed for, in the order they are checked. */
const NEEDED_SCOPES: Record<string, string> = {
  'events:read': 'to find an event on sale',
  'orders:write': 'to create, pay and refund the order',
  'orders:read': 'to read the order until it settles',
};

/**
 * The simulator's success number of each mobile-money method (docs/partners/testing.md): `01`
 * pays after about 2 s, and a refund of its payment succeeds at once.
 */
const SUCCESS_NUMBERS: Record<string, string> = {
  momo: '0770000001',
  airtel: '0700000001',
  mpesa: '0711000001',
};

/** How long a payment or a refund may take to settle before trigger gives up (the order stays). */
const SETTLE_MS = 60_000;
const POLL_MS = 250;
const EVENT_ID = /^evt_[A-Za-z0-9]{8,64}$/;

/** A refusal of trigger's own (not the API's): one line, exit 1. */
class TriggerRefused extends Error {}

type Data = Record<string, unknown>;

function parseTriggerArgs(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    options: {
      event: { type: 'string' },
      ...PARTNER_FLAGS,
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return null;
  if (positionals.length !== 1) {
    throw new UsageError('trigger takes one event type: order.paid or order.refunded');
  }
  const type = positionals[0]!;
  if (!(TYPES as readonly string[]).includes(type)) {
    throw new UsageError(`unknown event type "${type}": trigger takes order.paid or order.refunded`);
  }
  if (values.event !== undefined && !EVENT_ID.test(values.event)) {
    throw new UsageError(`--event must be an event id (evt_...), got "${values.event}"`);
  }
  return { ...values, type: type as TriggerType };
}

/** Runs `trigger`: 0 the event was emitted, 1 refused (by the API or by trigger), 2 usage error. */
export async function runTrigger(args: string[], io: PartnerIo): Promise<number> {
  const started = startPartnerCommand(() => parseTriggerArgs(args), TRIGGER_USAGE, io);
  if (typeof started === 'number') return started;
  const { options, credentials } = started;

  try {
    await trigger(credentials, options, io);
    return 0;
  } catch (error) {
    if (error instanceof TriggerRefused || error instanceof NetworkFailure) {
      io.stderr(`error: ${error.message}\n`);
      return 1;
    }
    if (error instanceof ApiFailure) {
      const fields = error.errors.map((e) => `\n  ${e.field}: ${e.message}`).join('');
      io.stderr(`error ${error.errorCode}: ${error.message}${fields}\n`);
      return 1;
    }
    throw error;
  }
}

async function trigger(
  credentials: PartnerCredentials,
  options: NonNullable<ReturnType<typeof parseTriggerArgs>>,
  io: PartnerIo,
): Promise<void> {
  await requireSimulator(credentials);
  const token = await tokenWithScopes(credentials);
  const api = (method: 'GET' | 'POST', path: string, body?: unknown) =>
    callPartnerApi(credentials, { token, method, path, body });

  const choice = await chooseTicket(api, options);
  const { event, ticket, method } = choice;
  io.stdout(
    `Event ${String(event.event_id)} (${String(event.name)}), ticket type ${String(ticket.ticket_type_id)} (${String(ticket.name)})\n`,
  );
  const phone = SUCCESS_NUMBERS[method ?? firstMethodOf(event) ?? 'momo']!;
  const created = await api('POST', '/v1/orders', orderBody(event, ticket, phone));
  const orderId = String(created.id);
  io.stdout(`Order ${orderId} created, ${String(created.currency)} ${String(created.total)}\n`);

  if (created.status !== 'paid') {
    await api('POST', `/v1/orders/${orderId}/pay`, { payment_method: method, phone });
    io.stdout(`Paying it from the simulator's success number ${phone} (${method!})\n`);
    await settle(api, orderId, 'paid');
  }
  io.stdout(`Order ${orderId} is paid\n`);

  if (options.type === 'order.refunded') {
    await api('POST', `/v1/orders/${orderId}/refunds`, { reason: 'Sandbox refund (ticketing trigger)' });
    io.stdout(`Refunding it in full\n`);
    await settle(api, orderId, 'refunded');
    io.stdout(`Order ${orderId} is refunded\n`);
  }
  io.stdout(
    `${options.type} emitted for order ${orderId}: every webhook endpoint of the organization that takes it and every running listen get it.\n`,
  );
}

/** GET /healthz names the service's payments; anything but the simulator is refused. */
async function requireSimulator(credentials: PartnerCredentials): Promise<void> {
  const health = await callPartnerApi(credentials, { path: '/healthz' });
  if (health.payments === 'simulator') return;
  if (health.payments === 'live') {
    throw new TriggerRefused(
      `the service at ${credentials.apiUrl} takes real payments (live mode): trigger runs only against a service on the payment simulator`,
    );
  }
  throw new TriggerRefused(
    `the service at ${credentials.apiUrl} does not say that it runs the payment simulator: trigger pays nothing there`,
  );
}

/** A token with every scope the client holds, refused naming the first scope trigger needs and lacks. */
async function tokenWithScopes(credentials: PartnerCredentials): Promise<string> {
  const { token, scopes } = await requestPartnerToken(credentials);
  for (const [scope, why] of Object.entries(NEEDED_SCOPES)) {
    if (!scopes.includes(scope)) {
      throw new TriggerRefused(
        `the API client ${credentials.clientId} lacks the ${scope} scope, which trigger needs ${why}: give it in the organizer app (Developer settings), or use another client`,
      );
    }
  }
  return token;
}

type Api = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<Data>;

interface Choice {
  event: Data;
  ticket: Data;
  /** the mobile-money method paid with; undefined for a free ticket */
  method: string | undefined;
}

/**
 * The given event, or the first on sale (soonest first) with a paid ticket trigger can buy, so
 * that the payment goes through the simulator; for order.paid, a free ticket when none is paid.
 */
async function chooseTicket(
  api: Api,
  options: NonNullable<ReturnType<typeof parseTriggerArgs>>,
): Promise<Choice> {
  // A refund needs money paid: a free ticket serves order.paid only.
  const freeWill = options.type === 'order.paid';
  const refusal = (where: string) =>
    new TriggerRefused(
      `${where}${freeWill ? '' : ' for money (a refund needs a paid ticket)'}: open one in the organizer app, or give --event <evt_...>`,
    );
  if (options.event) {
    const event = await api('GET', `/v1/events/${encodeURIComponent(options.event)}`);
    const { paid, free } = ticketsOf(event);
    const choice = paid ?? (freeWill ? free : undefined);
    if (!choice) throw refusal(`event ${options.event} has no ticket on sale that trigger can buy`);
    return choice;
  }
  let free: Choice | undefined;
  let cursor: string | undefined;
  do {
    const query = new URLSearchParams({ limit: '50', ...(cursor && { cursor }) });
    const page = await api('GET', `/v1/events?${query.toString()}`);
    for (const item of (page.events ?? []) as Data[]) {
      const event = await api('GET', `/v1/events/${encodeURIComponent(String(item.event_id))}`);
      const tickets = ticketsOf(event);
      if (tickets.paid) return tickets.paid;
      free ??= tickets.free;
    }
    cursor = page.has_more && typeof page.next_cursor === 'string' ? page.next_cursor : undefined;
  } while (cursor);
  if (free && freeWill) return free;
  throw refusal('no event of your organization is on sale with a ticket trigger can buy');
}

const paymentMethodsOf = (event: Data): string[] => (event.payment_methods ?? []) as string[];

/** The first method of the event that trigger pays with (it has a success number for it). */
const firstMethodOf = (event: Data): string | undefined =>
  paymentMethodsOf(event).find((m) => m in SUCCESS_NUMBERS);

/**
 * The event's first paid ticket type on sale now with a place left (when the event takes a
 * mobile-money method of the simulator), and its first free one.
 */
function ticketsOf(event: Data): { paid?: Choice; free?: Choice } {
  const now = Date.now();
  const onSale = ((event.ticket_types ?? []) as Data[]).filter(
    (t) =>
      (typeof t.remaining !== 'number' || t.remaining > 0) &&
      (typeof t.sales_start !== 'string' || Date.parse(t.sales_start) <= now) &&
      (typeof t.sales_end !== 'string' || Date.parse(t.sales_end) > now),
  );
  const method = firstMethodOf(event);
  const paid = onSale.find((t) => t.is_free !== true);
  const free = onSale.find((t) => t.is_free === true);
  return {
    ...(paid && method && event.payments_enabled !== false && { paid: { event, ticket: paid, method } }),
    ...(free && { free: { event, ticket: free, method: undefined } }),
  };
}

/** One runner with every answer the event asks for, and old enough for the ticket type. */
function orderBody(event: Data, ticket: Data, phone: string): Data {
  const answers: Record<string, string> = {};
  for (const q of (event.additional_questions ?? []) as Data[]) {
    if (q.required !== true) continue;
    const options = (q.options ?? []) as string[];
    answers[String(q.key)] = q.type === 'select' ? options[0]! : q.type === 'phone' ? phone : 'Sandbox';
  }
  const minAge = typeof ticket.min_age === 'number' ? ticket.min_age : 0;
  const item: Data = {
    ticket_type_id: ticket.ticket_type_id,
    participant_name: 'Sandbox Runner',
    ...(Object.keys(answers).length > 0 && { answers }),
    ...(minAge > 0 && { date_of_birth: `${new Date().getUTCFullYear() - Math.max(minAge, 18) - 2}-01-01` }),
  };
  return {
    event_id: event.event_id,
    items: [item],
    buyer: { name: 'Sandbox Buyer', email: 'sandbox-buyer@example.com', phone },
    ...(event.waiver_required === true && { waiver_accepted: true }),
  };
}

/** Reads the order until it has `status`; a failed payment or the time running out is refused. */
async function settle(api: Api, orderId: string, status: 'paid' | 'refunded'): Promise<void> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const order = await api('GET', `/v1/orders/${orderId}`);
    if (order.status === status) return;
    if (status === 'paid' && typeof order.failure_kind === 'string') {
      throw new TriggerRefused(`the payment of order ${orderId} failed (${order.failure_kind})`);
    }
    if (Date.now() > deadline) {
      throw new TriggerRefused(
        `order ${orderId} is still ${String(order.status)}, not ${status}, after ${SETTLE_MS / 1000} s: the service settles payments and refunds in its background jobs; check that they run (its log), then read the order with GET /v1/orders/${orderId}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
