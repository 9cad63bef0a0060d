// Apart from db.ts, which loads both database drivers (seconds at start): every other command and
// the help text start without them.
export const DB_USAGE = [
  'db migrate [--dry-run] [--json]',
  'db status [--json]',
  'db backup <file> [--json]',
  'db restore <file> [--json]',
];
