// `ticketing orgs ...`: create, list, read and update organizations.
import {
  bodyOf,
  booleanFlag,
  enc,
  requireSomething,
  str,
  UsageError,
  type Command,
  type Values,
} from '../command.ts';
import { renderOrganization, renderOrganizations } from '../render.ts';

const orgFields = (values: Values) => ({
  name: values.name,
  payments_enabled: booleanFlag('payments-enabled', values['payments-enabled']),
  support_email: values['support-email'],
});

const orgOptions = { name: str, 'payments-enabled': str, 'support-email': str, file: str };

export const ORGANIZATION_COMMANDS: Command[] = [
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
];
