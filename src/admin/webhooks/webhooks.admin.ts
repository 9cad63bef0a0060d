// Admin routes for webhook endpoints (docs/architecture.md#admin-api), relative to /admin/v1 with
// the admin key already required by the caller's scope: create (the secret is shown once), list,
// read, change URL and event types, disable, enable, rotate the secret, delete, send a test event,
// and the delivery log with replay. One file per route in this folder; this one registers them.
import type { FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.ts';
import type { Host } from '../../platform/index.ts';
import { createWebhookEndpointRoute } from './create-webhook-endpoint.ts';
import { deleteWebhookEndpointRoute } from './delete-webhook-endpoint.ts';
import { webhookEndpointStatusRoutes } from './endpoint-status.ts';
import { getWebhookDeliveryRoute } from './get-webhook-delivery.ts';
import { getWebhookEndpointRoute } from './get-webhook-endpoint.ts';
import { listWebhookDeliveriesRoute } from './list-webhook-deliveries.ts';
import { listWebhookEndpointsRoute } from './list-webhook-endpoints.ts';
import { retryWebhookDeliveryRoute } from './retry-webhook-delivery.ts';
import { rotateWebhookSecretRoute } from './rotate-webhook-secret.ts';
import { sendTestWebhookRoute } from './send-test-webhook.ts';
import { updateWebhookEndpointRoute } from './update-webhook-endpoint.ts';

export async function registerWebhookAdminRoutes(admin: Host, ctx: AppContext) {
  createWebhookEndpointRoute(admin, ctx);
  listWebhookEndpointsRoute(admin, ctx);
  getWebhookEndpointRoute(admin, ctx);
  updateWebhookEndpointRoute(admin, ctx);
  listWebhookDeliveriesRoute(admin, ctx);
  getWebhookDeliveryRoute(admin, ctx);

  // Actions take no body: absent, empty, or {} (even with a JSON content type).
  await admin.register(async (scope) => {
    const actions = scope.withTypeProvider<TypeBoxTypeProvider>();
    const jsonParser = actions.getDefaultJsonParser('error', 'error');
    actions.removeContentTypeParser('application/json');
    actions.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (typeof body === 'string' && body.trim() === '') return done(null, {});
      // the default parser is the callback form: it answers through `done` and returns nothing
      void jsonParser(request, body as string, done);
    });
    actions.addHook('preValidation', async (request: FastifyRequest) => {
      if (request.body === undefined) request.body = {};
    });

    deleteWebhookEndpointRoute(actions, ctx);
    webhookEndpointStatusRoutes(actions, ctx);
    rotateWebhookSecretRoute(actions, ctx);
    sendTestWebhookRoute(actions, ctx);
    retryWebhookDeliveryRoute(actions, ctx);
  });
}
