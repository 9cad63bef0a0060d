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
  type AdminClient,
} from './admin-client.ts';
import {
  renderClient,
  renderClients,
  renderEvent,
  renderEvents,
  renderOrganization,
  renderOrganizations,
  renderPublishableKey,
  renderSecret,
  renderTicketType,
  renderWebhookEndpoint,
  renderWebhookEndpoints,
  renderDelivery,
  renderDeliveries,
  table,
} from './render.ts';

type Data = Record<string, unknown>;
type Values = Record<string, string | boolean | string[] | undefined>;

class UsageError extends Error {}

interface Command {
  name: string;
  usage: string;
  options?: ParseArgsOptionsConfig;
  /** name of the one positional argument (an id), when the command takes one */
  id?: string;
  run(api: AdminClient, args: { id: string; values: Values; readFile: (p: string) => string }): Promise<Data>;
  render(data: Data): string;
}

const str = { type: 'string' } as const;
const list = { type: 'string', multiple: true } as const;
const flag = { type: 'boolean' } as const;
const enc = encodeURIComponent;

function readJsonObject(path: string, readFile: (p: string) => string): Data {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFile(path));
  } catch (error) {
    throw new UsageError(
      `cannot read ${path === '-' ? 'standard input' : path} as JSON: ${(error as Error).message}`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`${path} must hold a JSON object`);
  }
  return parsed as Data;
}

function booleanFlag(name: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'yes') return true;
  if (value === 'false' || value === 'no') return false;
  throw new UsageError(`--${name} takes true or false, got "${String(value)}"`);
}

/** The body of a create/update: --file first, then the flags given, then a check it says something. */
function bodyOf(values: Values, readFile: (p: string) => string, fields: Data): Data {
  const body = typeof values.file === 'string' ? readJsonObject(values.file, readFile) : {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) body[key] = value;
  return body;
}

function requireFlags(values: Values, names: string[]): void {
  for (const name of names) {
    if (values[name] === undefined) throw new UsageError(`--${name} is required`);
  }
}

function requireSomething(body: Data): void {
  if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give at least one option');
}

const orgFields = (values: Values) => ({
  name: values.name,
  payments_enabled: booleanFlag('payments-enabled', values['payments-enabled']),
  support_email: values['support-email'],
});

const orgOptions = { name: str, 'payments-enabled': str, 'support-email': str, file: str };

const clientListFields = (values: Values) => ({
  name: values.name,
  scopes: values.scope,
  allowed_domains: values['clear-allowed-domains'] ? [] : values['allowed-domain'],
  return_url_domains: values['clear-return-url-domains'] ? [] : values['return-url-domain'],
});

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

const COMMANDS: Command[] = [
  {
    name: 'orgs create',
    usage:
      'orgs create --name <name> [--payments-enabled true|false] [--support-email <email>] [--file <json>]',
    options: orgOptions,
    async run(api, { values, readFile }) {
      const body = bodyOf(values, readFile, orgFields(values));
      if (body.name === undefined) throw new UsageError('--name is required (or a --file with a name)');
      return api.call('POST', '/organizations', body);
    },
    render: renderOrganization,
  },
  {
    name: 'orgs list',
    usage: 'orgs list',
    run: (api) => api.call('GET', '/organizations'),
    render: renderOrganizations,
  },
  {
    name: 'orgs get',
    usage: 'orgs get <org_id>',
    id: 'org_id',
    run: (api, { id }) => api.call('GET', `/organizations/${enc(id)}`),
    render: renderOrganization,
  },
  {
    name: 'orgs update',
    usage:
      'orgs update <org_id> [--name <name>] [--payments-enabled true|false] [--support-email <email>] [--file <json>]',
    id: 'org_id',
    options: orgOptions,
    async run(api, { id, values, readFile }) {
      const body = bodyOf(values, readFile, orgFields(values));
      requireSomething(body);
      return api.call('PATCH', `/organizations/${enc(id)}`, body);
    },
    render: renderOrganization,
  },
  {
    name: 'events create',
    usage: 'events create --org <org_id> --file <event.json>',
    options: { org: str, file: str },
    async run(api, { values, readFile }) {
      requireFlags(values, ['org', 'file']);
      const body = bodyOf(values, readFile, {});
      return api.call('POST', `/organizations/${enc(String(values.org))}/events`, body);
    },
    render: renderEvent,
  },
  {
    name: 'events list',
    usage: 'events list --org <org_id>',
    options: { org: str },
    async run(api, { values }) {
      requireFlags(values, ['org']);
      return api.call('GET', `/organizations/${enc(String(values.org))}/events`);
    },
    render: renderEvents,
  },
  {
    name: 'events get',
    usage: 'events get <event_id>',
    id: 'event_id',
    run: (api, { id }) => api.call('GET', `/events/${enc(id)}`),
    render: renderEvent,
  },
  {
    name: 'events update',
    usage:
      'events update <event_id> [--file <patch.json>] [--status <status>] [--visibility <visibility>] [--name <name>]',
    id: 'event_id',
    options: { file: str, status: str, visibility: str, name: str },
    async run(api, { id, values, readFile }) {
      const body = bodyOf(values, readFile, {
        status: values.status,
        visibility: values.visibility,
        name: values.name,
      });
      requireSomething(body);
      return api.call('PATCH', `/events/${enc(id)}`, body);
    },
    render: renderEvent,
  },
  {
    name: 'events add-ticket-type',
    usage: 'events add-ticket-type <event_id> --file <ticket-type.json>',
    id: 'event_id',
    options: { file: str },
    async run(api, { id, values, readFile }) {
      requireFlags(values, ['file']);
      return api.call('POST', `/events/${enc(id)}/ticket-types`, bodyOf(values, readFile, {}));
    },
    render: renderTicketType,
  },
  {
    name: 'ticket-types update',
    usage: 'ticket-types update <ticket_type_id> [--file <patch.json>] [--capacity <n>]',
    id: 'ticket_type_id',
    options: { file: str, capacity: str },
    async run(api, { id, values, readFile }) {
      const capacity = values.capacity === undefined ? undefined : Number(values.capacity);
      if (capacity !== undefined && !Number.isInteger(capacity)) {
        throw new UsageError(`--capacity takes a whole number, got "${String(values.capacity)}"`);
      }
      const body = bodyOf(values, readFile, { capacity });
      requireSomething(body);
      return api.call('PATCH', `/ticket-types/${enc(id)}`, body);
    },
    render: renderTicketType,
  },
  {
    name: 'clients create',
    usage:
      'clients create --org <org_id> --name <name> --scope <scope>... [--allowed-domain <origin>]... [--return-url-domain <origin>]...',
    options: { org: str, name: str, scope: list, 'allowed-domain': list, 'return-url-domain': list },
    async run(api, { values }) {
      requireFlags(values, ['org', 'name', 'scope']);
      return api.call('POST', `/organizations/${enc(String(values.org))}/clients`, {
        name: values.name,
        scopes: values.scope,
        allowed_domains: values['allowed-domain'] ?? [],
        return_url_domains: values['return-url-domain'] ?? [],
      });
    },
    render: renderClient,
  },
  {
    name: 'clients list',
    usage: 'clients list --org <org_id>',
    options: { org: str },
    async run(api, { values }) {
      requireFlags(values, ['org']);
      return api.call('GET', `/organizations/${enc(String(values.org))}/clients`);
    },
    render: renderClients,
  },
  {
    name: 'clients get',
    usage: 'clients get <client_id>',
    id: 'client_id',
    run: (api, { id }) => api.call('GET', `/clients/${enc(id)}`),
    render: renderClient,
  },
  {
    name: 'clients update',
    usage:
      'clients update <client_id> [--name <name>] [--scope <scope>]... [--allowed-domain <origin>]... [--return-url-domain <origin>]... [--clear-allowed-domains] [--clear-return-url-domains]',
    id: 'client_id',
    options: {
      name: str,
      scope: list,
      'allowed-domain': list,
      'return-url-domain': list,
      'clear-allowed-domains': flag,
      'clear-return-url-domains': flag,
    },
    async run(api, { id, values }) {
      const body = bodyOf(values, () => '', clientListFields(values));
      requireSomething(body);
      return api.call('PATCH', `/clients/${enc(id)}`, body);
    },
    render: renderClient,
  },
  {
    name: 'clients revoke',
    usage: 'clients revoke <client_id>',
    id: 'client_id',
    run: (api, { id }) => api.call('POST', `/clients/${enc(id)}/revoke`),
    render: renderClient,
  },
  {
    name: 'clients rotate-secret',
    usage: 'clients rotate-secret <client_id>',
    id: 'client_id',
    run: (api, { id }) => api.call('POST', `/clients/${enc(id)}/rotate-secret`),
    render: renderSecret,
  },
  {
    name: 'clients regenerate-publishable-key',
    usage: 'clients regenerate-publishable-key <client_id>',
    id: 'client_id',
    run: (api, { id }) => api.call('POST', `/clients/${enc(id)}/regenerate-publishable-key`),
    render: renderPublishableKey,
  },
  {
    name: 'webhooks create',
    usage: 'webhooks create --org <org_id> --endpoint-url <https url> [--event <type>]...',
    options: { org: str, 'endpoint-url': str, event: list },
    async run(api, { values }) {
      requireFlags(values, ['org', 'endpoint-url']);
      return api.call('POST', `/organizations/${enc(String(values.org))}/webhook-endpoints`, {
        url: values['endpoint-url'],
        ...(values.event && { events: values.event }),
      });
    },
    render: renderWebhookEndpoint,
  },
  {
    name: 'webhooks list',
    usage: 'webhooks list --org <org_id>',
    options: { org: str },
    async run(api, { values }) {
      requireFlags(values, ['org']);
      return api.call('GET', `/organizations/${enc(String(values.org))}/webhook-endpoints`);
    },
    render: renderWebhookEndpoints,
  },
  {
    name: 'webhooks get',
    usage: 'webhooks get <endpoint_id>',
    id: 'endpoint_id',
    run: (api, { id }) => api.call('GET', `/webhook-endpoints/${enc(id)}`),
    render: renderWebhookEndpoint,
  },
  {
    name: 'webhooks update',
    usage: 'webhooks update <endpoint_id> [--endpoint-url <url>] [--event <type>]...',
    id: 'endpoint_id',
    options: { 'endpoint-url': str, event: list },
    async run(api, { id, values }) {
      const body = {
        ...(values['endpoint-url'] !== undefined && { url: values['endpoint-url'] }),
        ...(values.event && { events: values.event }),
      };
      requireSomething(body);
      return api.call('PATCH', `/webhook-endpoints/${enc(id)}`, body);
    },
    render: renderWebhookEndpoint,
  },
  ...(['disable', 'enable', 'rotate-secret', 'test'] as const).map((action): Command => ({
    name: `webhooks ${action}`,
    usage: `webhooks ${action} <endpoint_id>`,
    id: 'endpoint_id',
    run: (api, { id }) => api.call('POST', `/webhook-endpoints/${enc(id)}/${action}`),
    render: action === 'test' ? renderDelivery : renderWebhookEndpoint,
  })),
  {
    name: 'webhooks delete',
    usage: 'webhooks delete <endpoint_id>',
    id: 'endpoint_id',
    run: (api, { id }) => api.call('DELETE', `/webhook-endpoints/${enc(id)}`),
    render: renderWebhookEndpoint,
  },
  {
    name: 'webhooks deliveries',
    usage: 'webhooks deliveries <endpoint_id>',
    id: 'endpoint_id',
    run: (api, { id }) => api.call('GET', `/webhook-endpoints/${enc(id)}/deliveries`),
    render: renderDeliveries,
  },
  {
    name: 'webhooks retry',
    usage: 'webhooks retry <endpoint_id> --delivery <delivery_id>',
    id: 'endpoint_id',
    options: { delivery: str },
    async run(api, { id, values }) {
      requireFlags(values, ['delivery']);
      return api.call(
        'POST',
        `/webhook-endpoints/${enc(id)}/deliveries/${enc(String(values.delivery))}/retry`,
      );
    },
    render: renderDelivery,
  },
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

const USAGE = [
  'Usage: ticketing <command> [options]',
  '',
  ...COMMANDS.map((c) => `  ${c.usage}`),
  '  help',
  '',
  'Options for every command:',
  '  --json         print the raw data object instead of text',
  '  --url <url>    the service APP_URL (default: $APP_URL or http://127.0.0.1:4002)',
  '',
  'The admin key comes from ADMIN_API_KEY, else admin_api_key in $DATA_DIR/demo.json (DATA_DIR',
  'defaults to .data). A --file of - reads standard input. Scopes: events:read,',
  'checkout_sessions:write, checkout_sessions:read, orders:read, orders:write.',
].join('\n');

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
    stderr(`${USAGE}\n`);
    return 2;
  }
  if (group === 'help' || group === '--help' || group === '-h') {
    stdout(`${USAGE}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === `${group} ${action ?? ''}`);
  if (!command) {
    const known = COMMANDS.some((c) => c.name.startsWith(`${group} `));
    const what = known ? `unknown ${group} command "${action ?? ''}"` : `unknown command "${group}"`;
    stderr(`error: ${what}\n\n${USAGE}\n`);
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
}
