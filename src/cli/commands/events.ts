// `ticketing events ...` and `ticketing ticket-types ...`: events from JSON files, their status,
// visibility and name, and ticket types.
import { bodyOf, enc, requireFlags, requireSomething, str, UsageError, type Command } from '../command.ts';
import { renderEvent, renderEvents, renderTicketType } from '../render.ts';

export const EVENT_COMMANDS: Command[] = [
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
];
