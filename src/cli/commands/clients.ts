// `ticketing clients ...`: API clients, their scopes and domains, revocation and new credentials.
import {
  bodyOf,
  enc,
  flag,
  list,
  requireFlags,
  requireSomething,
  str,
  type Command,
  type Values,
} from '../command.ts';
import { renderClient, renderClients, renderPublishableKey, renderSecret } from '../render.ts';

const clientListFields = (values: Values) => ({
  name: values.name,
  scopes: values.scope,
  allowed_domains: values['clear-allowed-domains'] ? [] : values['allowed-domain'],
  return_url_domains: values['clear-return-url-domains'] ? [] : values['return-url-domain'],
});

export const CLIENT_COMMANDS: Command[] = [
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
];
