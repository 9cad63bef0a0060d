// `ticketing buyers erase --email <email>`: erases one buyer's personal data in every organization
// (POST /buyer-erasures) and prints what changed. Running it again prints zeros.
import { requireFlags, str, type Command, type Data } from '../command.ts';

/** The counts in the order the answer gives them, one per line. */
function renderErasure(data: Data): string {
  const erased = (data.erased ?? {}) as Record<string, number>;
  const width = Math.max(...Object.keys(erased).map((k) => k.length));
  return [
    `erasure ${String(data.erasure_id)}: ${Number(data.organizations)} organization(s) changed`,
    ...Object.entries(erased).map(([name, n]) => `  ${name.padEnd(width)}  ${n}`),
  ].join('\n');
}

export const BUYER_COMMANDS: Command[] = [
  {
    name: 'buyers erase',
    usage: 'buyers erase --email <email>',
    options: { email: str },
    async run(api, { values }) {
      requireFlags(values, ['email']);
      return api.call('POST', '/buyer-erasures', { email: String(values.email) });
    },
    render: renderErasure,
  },
];
