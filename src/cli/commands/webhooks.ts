// `ticketing webhooks ...`: webhook endpoints, their actions, and the delivery log with retry.
import { enc, list, requireFlags, requireSomething, str, type Command } from '../command.ts';
import {
  renderDeliveries,
  renderDelivery,
  renderWebhookEndpoint,
  renderWebhookEndpoints,
} from '../render.ts';

export const WEBHOOK_COMMANDS: Command[] = [
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
];
