// `ticketing payments ...`: payments that bought nothing and are due a refund.
import { enc, requireFlags, str, type Command, type Data } from '../command.ts';
import { table } from '../render.ts';

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
];
