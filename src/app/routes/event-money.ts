// An event's money: GET /events/:eventId/money (every member who reads events), its figures as a
// CSV (money.csv), and every payment and refund with the provider's reference for matching against
// the mobile money networks' and Flutterwave's statements (reconciliation.csv, streamed a batch of
// orders at a time).
// The files hold no buyer's contact; each download is audited all the same: they are the books.
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { csvLines, currencyExponent, type CsvValue } from '../../platform/index.ts';
import { loadEventMoney, methodLabel, reconciliationRows, type EventMoney } from '../../sales/index.ts';
import { memberOf, PageError } from '../app-access.ts';
import { EventParams, paramsOf } from '../app-input.ts';
import { audited, localStamp, type ExportRecord } from '../exports.ts';
import { sendPage, viewerOf, type Handler } from '../replies.ts';
import { renderEventMoney } from '../views/event-money-page.ts';

async function moneyOf(ctx: AppContext, request: FastifyRequest): Promise<EventMoney> {
  const { eventId } = paramsOf(request, EventParams);
  const money = await loadEventMoney(ctx.database.db, {
    organizationId: memberOf(request).organizationId,
    eventId,
  });
  if (!money) throw new PageError('not_found', 'event');
  return money;
}

export function showEventMoney(ctx: AppContext): Handler {
  return async (request, reply) => {
    const [money, viewer] = await Promise.all([moneyOf(ctx, request), viewerOf(ctx, request)]);
    return sendPage(reply, 200, renderEventMoney(viewer, money));
  };
}

const fileName = (money: EventMoney, what: string) =>
  `${money.event.handle.replace(/[^A-Za-z0-9-]/g, '').slice(0, 80) || 'event'}-${what}.csv`;

function sendCsv(
  reply: Parameters<Handler>[1],
  file: string,
  header: string[],
  rows: AsyncIterable<CsvValue[]>,
) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${file}"`)
    .header('Cache-Control', 'no-store')
    .send(Readable.from(csvLines(header, rows, (row) => row)));
}

const recordOf = (money: EventMoney, file: string): ExportRecord => ({
  action: 'event.money_exported',
  target: { type: 'event', id: money.event.id },
  file,
  contacts: false,
});

const MONEY_COLUMNS = [
  'orders',
  'tickets',
  'paid',
  'fees',
  'donations',
  'refunded',
  'refundedRunners',
  'net',
] as const;
type MoneyCells = Partial<Record<(typeof MONEY_COLUMNS)[number], number>>;

/** The page's two tables in one file: a section column says which, amounts in major units. */
export function exportEventMoney(ctx: AppContext): Handler {
  return async (request, reply) => {
    const money = await moneyOf(ctx, request);
    const { currency } = money.event;
    const major = (minor: number) => inMajor(minor, currency);
    const line = (section: string, name: string, cells: MoneyCells): CsvValue[] => [
      section,
      name,
      ...MONEY_COLUMNS.map((c) => cells[c]),
    ];
    const network = (name: string, n: EventMoney['total']) =>
      line('Network', name, {
        orders: n.orders,
        paid: major(n.paidMinor),
        fees: major(n.feesMinor),
        donations: major(n.donationsMinor),
        refunded: major(n.refundedMinor),
        net: major(n.netMinor),
      });
    const lines: CsvValue[][] = [
      ...money.byNetwork.map((n) => network(n.label, n)),
      network('Total', money.total),
      ...money.byTicketType.map((t) =>
        line('Ticket type', t.name, {
          tickets: t.tickets,
          paid: major(t.ticketMinor),
          fees: major(t.feesMinor),
          refunded: major(t.refundedTicketMinor),
          refundedRunners: t.refundedTickets,
          net: major(t.netMinor),
        }),
      ),
      line('Donations', 'Donations', {
        paid: major(money.total.donationsMinor),
        donations: major(money.total.donationsMinor),
        refunded: major(money.total.donationsMinor - money.donationsNetMinor),
        net: major(money.donationsNetMinor),
      }),
      ...(money.otherRefundsMinor > 0
        ? [
            line('Refunds', 'Refunds of an amount', {
              refunded: major(money.otherRefundsMinor),
              net: major(-money.otherRefundsMinor),
            }),
          ]
        : []),
    ];
    const file = fileName(money, 'money');
    const rows = audited(ctx, request, recordOf(money, file), toAsync(lines));
    return sendCsv(
      reply,
      file,
      [
        'Section',
        'Line',
        'Orders',
        'Tickets',
        `Paid (${currency})`,
        `Service fees (${currency})`,
        `Donations (${currency})`,
        `Refunded (${currency})`,
        'Refunded runners',
        `You receive (${currency})`,
      ],
      rows,
    );
  };
}

/** An amount as a plain number in major units, which a spreadsheet sums (a minus sign included). */
const inMajor = (minor: number, currency: string) => minor / 10 ** currencyExponent(currency);

async function* toAsync<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

const REFUND_KINDS: Record<string, string> = {
  order: 'Refund',
  paid_after_expiry: 'Refund of a late payment',
  duplicate_payment: 'Refund of a second payment',
};

/** One line per payment and refund, order by order, times on the event's clock. */
export function exportReconciliation(ctx: AppContext): Handler {
  return async (request, reply) => {
    const money = await moneyOf(ctx, request);
    const { timezone } = money.event;
    const file = fileName(money, 'payments-and-refunds');
    const walk = reconciliationRows(ctx.database.db, {
      organizationId: memberOf(request).organizationId,
      eventId: money.event.id,
    });
    async function* lines(): AsyncGenerator<CsvValue[]> {
      for await (const row of audited(ctx, request, recordOf(money, file), walk)) {
        const sign = row.type === 'refund' ? -1 : 1;
        yield [
          localStamp(row.at, timezone),
          row.type === 'payment' ? 'Payment' : (REFUND_KINDS[row.refundKind ?? 'order'] ?? 'Refund'),
          methodLabel(row.method),
          inMajor(sign * row.amountMinor, row.currency),
          row.currency,
          row.providerReference ?? '',
          row.reference,
          row.order.orderCode,
          row.order.status,
        ];
      }
    }
    return sendCsv(
      reply,
      file,
      [
        `Time (${timezone})`,
        'Type',
        'Network',
        'Amount',
        'Currency',
        'Network reference',
        'Our reference',
        'Order',
        'Order status',
      ],
      lines(),
    );
  };
}
