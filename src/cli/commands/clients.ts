// `ticketing clients ...`: API clients, their scopes and domains, revocation and new credentials.
import {
  bodyOf,
  enc,
  flag,
  list,
  requireFlags,
  requireSomething,
  str,
  UsageError,
  type Command,
  type Data,
  type Values,
} from '../command.ts';
import type { AdminClient } from '../admin-client.ts';
import { renderClient, renderClients, renderPublishableKey, renderSecret } from '../render.ts';

/** The two origin lists: the admin API's field and the CLI's words for one entry. */
const DOMAIN_LISTS = [
  { field: 'allowed_domains', one: 'allowed-domain', all: 'allowed-domains' },
  { field: 'return_url_domains', one: 'return-url-domain', all: 'return-url-domains' },
] as const;

const listOptions = Object.fromEntries(
  DOMAIN_LISTS.flatMap(({ one, all }) => [
    [`add-${one}`, list],
    [`remove-${one}`, list],
    [`set-${all}`, list],
    [`clear-${all}`, flag],
    // accepted only to say what to use instead (it used to replace the whole list)
    [one, list],
  ]),
);

/**
 * Each list the flags change, as the whole new list the PATCH sends. --add and --remove apply
 * to the client's current list (read first); replacing a list takes --set or --clear.
 */
async function listChanges(api: AdminClient, id: string, values: Values): Promise<Data> {
  const body: Data = {};
  let current: Data | undefined;
  for (const { field, one, all } of DOMAIN_LISTS) {
    if (values[one] !== undefined) {
      throw new UsageError(
        `clients update takes --add-${one} or --remove-${one} for one origin, or --set-${all} to replace the whole list`,
      );
    }
    const [add, remove, set] = [values[`add-${one}`], values[`remove-${one}`], values[`set-${all}`]];
    const clear = values[`clear-${all}`] === true;
    if ([add ?? remove, set, clear || undefined].filter((v) => v !== undefined).length > 1) {
      throw new UsageError(`use one of --add/--remove-${one}, --set-${all} and --clear-${all}`);
    }
    if (clear) body[field] = [];
    else if (set !== undefined) body[field] = set;
    else if (add !== undefined || remove !== undefined) {
      current ??= await api.call('GET', `/clients/${enc(id)}`);
      const removed = new Set((remove as string[] | undefined) ?? []);
      const kept = (current[field] as string[]).filter((origin) => !removed.has(origin));
      body[field] = [...new Set([...kept, ...((add as string[] | undefined) ?? [])])];
    }
  }
  return body;
}

/** The display name an update sends: the new one, null to remove it (--clear), or nothing. */
function displayNameChange(values: Values): string | null | undefined {
  const clear = values['clear-display-name'] === true;
  if (clear && values['display-name'] !== undefined) {
    throw new UsageError('use one of --display-name and --clear-display-name');
  }
  return clear ? null : (values['display-name'] as string | undefined);
}

export const CLIENT_COMMANDS: Command[] = [
  {
    name: 'clients create',
    usage:
      'clients create --org <org_id> --name <name> [--display-name <name shown to buyers>] --scope <scope>... [--allowed-domain <origin>]... [--return-url-domain <origin>]...',
    options: {
      org: str,
      name: str,
      'display-name': str,
      scope: list,
      'allowed-domain': list,
      'return-url-domain': list,
    },
    async run(api, { values }) {
      requireFlags(values, ['org', 'name', 'scope']);
      return api.call('POST', `/organizations/${enc(String(values.org))}/clients`, {
        name: values.name,
        ...(values['display-name'] !== undefined && { display_name: values['display-name'] }),
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
      'clients update <client_id> [--name <name>] [--display-name <name shown to buyers> | --clear-display-name] [--scope <scope>]... [--add-allowed-domain <origin>]... [--remove-allowed-domain <origin>]... [--set-allowed-domains <origin>]... [--clear-allowed-domains] (and the same for return-url-domain)',
    id: 'client_id',
    options: { name: str, 'display-name': str, 'clear-display-name': flag, scope: list, ...listOptions },
    async run(api, { id, values }) {
      const fields = {
        name: values.name,
        display_name: displayNameChange(values),
        scopes: values.scope,
        ...(await listChanges(api, id, values)),
      };
      const body = bodyOf(values, () => '', fields);
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
];
