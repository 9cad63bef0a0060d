// `ticketing invitations ...`: invite someone to an organization (the operator invites its first
// owner; owners and admins invite the rest in the app) and list the invitations still pending.
import { enc, requireFlags, str, UsageError, type Command, type Data, type Values } from '../command.ts';
import { keyValues, table } from '../render.ts';

/** --organization, or --org as every other command spells it. */
function organizationOf(values: Values): string {
  const { organization, org } = values;
  if (organization !== undefined && org !== undefined && organization !== org) {
    throw new UsageError('--organization and --org name different organizations');
  }
  const id = organization ?? org;
  if (typeof id !== 'string') throw new UsageError('--organization is required');
  return id;
}

function renderInvitation(data: Data): string {
  return [
    keyValues([
      ['email', data.email],
      ['role', data.role],
      ['invitation_url', data.invitation_url],
      ['expires_at', data.expires_at],
    ]),
    '',
    'Send the link to the person invited: it works once, until expires_at, and is shown only this once.',
  ].join('\n');
}

function renderInvitations(data: Data): string {
  return table((data.invitations as Data[]) ?? [], ['id', 'email', 'role', 'expires_at', 'created_at']);
}

export const INVITATION_COMMANDS: Command[] = [
  {
    name: 'invitations create',
    usage:
      'invitations create --organization <org_id> --email <email> --role owner|admin|developer|viewer|checker',
    options: { organization: str, org: str, email: str, role: str },
    async run(api, { values }) {
      const organization = organizationOf(values);
      requireFlags(values, ['email', 'role']);
      return api.call('POST', `/organizations/${enc(organization)}/invitations`, {
        email: values.email,
        role: values.role,
      });
    },
    render: renderInvitation,
  },
  {
    name: 'invitations list',
    usage: 'invitations list --organization <org_id>',
    options: { organization: str, org: str },
    run: (api, { values }) => api.call('GET', `/organizations/${enc(organizationOf(values))}/invitations`),
    render: renderInvitations,
  },
];
