// `ticketing payments ...`: payments that bought nothing and are due a refund, and an order's
// refund (the admin API's, which calls the same action as the partner API and the organizer app).
import { enc, list, requireFlags, str, UsageError, type Command, type Data } from '../command.ts';
import { keyValues, table } from '../render.ts';

const REFUND_COLUMNS = [
  'order_code',
  'reason',
  'amount_minor',
  'currency',
  'payment_method',
  'payer_phone',
  'payment_reference',
  'order_id',
];

export const PAYMENT_COMMANDS: Command[] = [
  {
    name: 'payments needs-refund',
    usage: 'payments needs-refund --org <org_id>',
    options: { org: str },
    async run(api, { values }) {
      requireFlags(values, ['org']);
      return api.call('GET', `/organizations/${enc(String(values.org))}/payments/needs-refund`);
    },
    render: (data) => {
      const rows = table(data.payments as Data[], REFUND_COLUMNS);
      return data.has_more ? `${rows}\n(more are due: the oldest are shown first)` : rows;
    },
  },
  {
    name: 'payments refund',
    usage:
      'payments refund --org <org_id> --order <order_id> [--amount <minor units>] [--runner <registration_id>]... [--reason <text>]',
    options: { org: str, order: str, amount: str, runner: list, reason: str },
    async run(api, { values }) {
      requireFlags(values, ['org', 'order']);
      const amount = values.amount === undefined ? undefined : Number(values.amount);
      if (amount !== undefined && !Number.isInteger(amount)) {
        throw new UsageError('--amount must be a whole number of minor units');
      }
      const runners = values.runner as string[] | undefined;
      return api.call(
        'POST',
        `/organizations/${enc(String(values.org))}/orders/${enc(String(values.order))}/refunds`,
        {
          ...(amount !== undefined && { amount_minor: amount }),
          ...(runners && runners.length > 0 && { registration_ids: runners }),
          ...(values.reason !== undefined && { reason: values.reason }),
        },
      );
    },
    render: (refund) =>
      keyValues([
        ['refund', refund.id],
        ['status', refund.status],
        ['amount_minor', refund.amount_minor],
        ['currency', refund.currency],
        ['method', refund.method],
        ['runners', (refund.registration_ids as string[]).join(', ') || '(none: an amount)'],
        ['reason', refund.reason ?? ''],
      ]),
  },
];
