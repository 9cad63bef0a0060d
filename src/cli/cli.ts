// The admin command line: `ticketing <group> <action> [id] [--flags]` over the admin API (HTTP).
// Exit codes: 0 done, 1 the API (or the network) refused, 2 usage or configuration error.
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import {
  ApiFailure,
  ConfigFailure,
  createAdminClient,
  NetworkFailure,
  resolveAdminKey,
  resolveAppUrl,
} from './admin-client.ts';
import { flag, str, UsageError, type Command, type Values } from './command.ts';
import { DB_USAGE } from './commands/db-usage.ts';

// Each command's module is imported when it runs, so that a command loads only what it needs
// (`listen` starts in a fraction of the time it took when every module came first).

/** In the order `ticketing help` lists them. */
async function adminCommands(): Promise<Command[]> {
  const [organizations, invitations, events, clients, webhooks, payments, buyers] = await Promise.all([
    import('./commands/organizations.ts'),
    import('./commands/invitations.ts'),
    import('./commands/events.ts'),
    import('./commands/clients.ts'),
    import('./commands/webhooks.ts'),
    import('./commands/payments.ts'),
    import('./commands/buyers.ts'),
  ]);
  return [
    ...organizations.ORGANIZATION_COMMANDS,
    ...invitations.INVITATION_COMMANDS,
    ...events.EVENT_COMMANDS,
    ...clients.CLIENT_COMMANDS,
    ...webhooks.WEBHOOK_COMMANDS,
    ...payments.PAYMENT_COMMANDS,
    ...buyers.BUYER_COMMANDS,
  ];
}

async function usage(): Promise<string> {
  const [commands, { LISTEN_USAGE }, { TRIGGER_USAGE }, { ENV_USAGE }] = await Promise.all([
    adminCommands(),
    import('./commands/listen.ts'),
    import('./commands/trigger.ts'),
    import('./commands/env.ts'),
  ]);
  return [
    'Usage: ticketing <command> [options]',
    '',
    ...commands.map((c) => `  ${c.usage}`),
    `  ${LISTEN_USAGE}`,
    `  ${TRIGGER_USAGE}`,
    `  ${ENV_USAGE}`,
    ...DB_USAGE.map((u) => `  ${u}`),
    '  help',
    '',
    'Options for every command:',
    '  --json         print the raw data object instead of text',
    '  --url <url>    the service APP_URL (default: $APP_URL or http://127.0.0.1:4002)',
    '',
    'The admin key comes from ADMIN_API_KEY, else admin_api_key in $DATA_DIR/demo.json (DATA_DIR',
    'defaults to .data). A --file of - reads standard input. Scopes: events:read,',
    'checkout_sessions:write, checkout_sessions:read, orders:read, orders:write, webhooks:write.',
    '',
    'listen forwards your webhook events to a local URL, signed as endpoints get them. It signs in',
    'with an API client (webhooks:write): --client-id/--client-secret, else TICKETING_CLIENT_ID and',
    'TICKETING_CLIENT_SECRET, else client_id/client_secret in $DATA_DIR/demo.json; the API at',
    '--api-url, else $API_URL, else http://127.0.0.1:4000.',
    '',
    'trigger makes one sandbox order and settles it, so that your webhook endpoints and listen get',
    'order.paid (and, for order.refunded, then refunds it): an event on sale (or --event), one ticket,',
    "paid from the payment simulator's success number. It signs in as listen does, with a client",
    'holding events:read, orders:read and orders:write, and refuses a service taking real payments.',
    '',
    'env prints export lines for a shell (eval "$(npm run -s cli -- env)"): API_URL, SITE_URL, APP_URL',
    "and DATA_DIR as the service reads them from this environment, and the demo client's CLIENT_ID,",
    'CLIENT_SECRET and PUBLISHABLE_KEY from $DATA_DIR/demo.json.',
    '',
    'db migrate applies pending migrations (the release step; all in one transaction) and db status',
    'lists applied and pending ones, on the database itself: DATABASE_URL, else PGlite in $DATA_DIR.',
  ].join('\n');
}

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
  readFile(path: string): string;
}

const defaultIo: CliIo = {
  env: process.env,
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  readFile: (path) => readFileSync(path === '-' ? 0 : path, 'utf8'),
};

const GLOBAL_OPTIONS: ParseArgsOptionsConfig = {
  json: flag,
  url: str,
  help: { type: 'boolean', short: 'h' },
};

/** Runs one command; resolves to the exit code. */
export async function runCli(argv: string[], io: Partial<CliIo> = {}): Promise<number> {
  const { env, stdout, stderr, readFile } = { ...defaultIo, ...io };
  const [group, action, ...rest] = argv;
  if (group === undefined) {
    stderr(`${await usage()}\n`);
    return 2;
  }
  if (group === 'help' || group === '--help' || group === '-h') {
    stdout(`${await usage()}\n`);
    return 0;
  }
  // The partner-API commands, with their own options and the partner's own credentials.
  if (group === 'listen') {
    const { runListen } = await import('./commands/listen.ts');
    return runListen(argv.slice(1), { env, stdout, stderr });
  }
  if (group === 'trigger') {
    const { runTrigger } = await import('./commands/trigger.ts');
    return runTrigger(argv.slice(1), { env, stdout, stderr });
  }
  // Reads the configuration and demo.json only: no call to any API.
  if (group === 'env') {
    const { runEnv } = await import('./commands/env.ts');
    return runEnv(argv.slice(1), { env, stdout, stderr });
  }
  // The release step: on the database, not over the admin API (the service may not run yet).
  if (group === 'db') {
    const { runDb } = await import('./commands/db.ts');
    return runDb(argv.slice(1), { env, stdout, stderr });
  }
  const commands = await adminCommands();
  const command = commands.find((c) => c.name === `${group} ${action ?? ''}`);
  if (!command) {
    const known = commands.some((c) => c.name.startsWith(`${group} `));
    const what = known ? `unknown ${group} command "${action ?? ''}"` : `unknown command "${group}"`;
    stderr(`error: ${what}\n\n${await usage()}\n`);
    return 2;
  }

  let values: Values;
  let id: string;
  try {
    const parsed = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    values = parsed.values as Values;
    if (values.help) {
      stdout(`Usage: ticketing ${command.usage}\n`);
      return 0;
    }
    const expected = command.id ? 1 : 0;
    if (parsed.positionals.length !== expected) {
      throw new UsageError(
        command.id
          ? `${command.name} takes one <${command.id}>`
          : `${command.name} takes no argument, got "${parsed.positionals.join(' ')}"`,
      );
    }
    id = parsed.positionals[0] ?? '';
  } catch (error) {
    const message =
      error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
        ? (error as Error).message
        : String(error);
    stderr(`error: ${message}\nUsage: ticketing ${command.usage}\nRun "ticketing help" for every command.\n`);
    return 2;
  }

  try {
    const api = createAdminClient({
      appUrl: resolveAppUrl(env, typeof values.url === 'string' ? values.url : undefined),
      adminKey: resolveAdminKey(env),
    });
    const data = await command.run(api, { id, values, readFile });
    stdout(`${values.json ? JSON.stringify(data, null, 2) : command.render(data)}\n`);
    return 0;
  } catch (error) {
    return reportFailure(error, command, stderr);
  }
}

/** Tells why a command failed and gives its exit code; anything unexpected is thrown on. */
function reportFailure(error: unknown, command: Command, stderr: (text: string) => void): number {
  if (error instanceof UsageError) {
    stderr(`error: ${error.message}\nUsage: ticketing ${command.usage}\n`);
    return 2;
  }
  if (error instanceof ConfigFailure) {
    stderr(`error: ${error.message}\n`);
    return 2;
  }
  if (error instanceof ApiFailure) {
    const lines = [`error ${error.errorCode}: ${error.message}`];
    for (const e of error.errors) lines.push(`  ${e.field}: ${e.message}`);
    if (error.requestId) lines.push(`  (request ${error.requestId})`);
    stderr(`${lines.join('\n')}\n`);
    return 1;
  }
  if (error instanceof NetworkFailure) {
    stderr(`error: ${error.message}\n`);
    return 1;
  }
  throw error;
}
