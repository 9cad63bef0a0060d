// Webhook endpoints, the outbox, signing, delivery, and the partner webhook API.
export { createWebhookEndpoint } from './actions/create-webhook-endpoint.ts';
export { deleteWebhookEndpoint } from './actions/delete-webhook-endpoint.ts';
export { endpointExistsMessage, endpointRefusalError } from './actions/endpoint-checks.ts';
export type { EndpointExists } from './actions/endpoint-checks.ts';
export { rotateWebhookSecret } from './actions/rotate-webhook-secret.ts';
export { updateWebhookEndpoint } from './actions/update-webhook-endpoint.ts';
export { attemptDelivery } from './deliver-webhook.ts';
export { deliveryPage, DeliveryListOut, DeliveryQuery, retryEndpointDelivery } from './delivery-log.ts';
export { listDeliveriesAbout } from './deliveries-about.ts';
export type { DeliveryAbout } from './deliveries-about.ts';
export {
  DeletedOut,
  disabledConflict,
  EndpointCreatedOut,
  EndpointCreateIn,
  EndpointPatchIn,
  UrlIn,
} from './endpoint-input.ts';
export { registerEventStreamRoutes } from './event-stream.ts';
export { outboxInsert, writeOutboxEvents } from './outbox.ts';
export type { OutboxEvent } from './outbox.ts';
export { USER_AGENT } from './send-webhook.ts';
export type { Resolver } from './send-webhook.ts';
export { countUndispatchedEvents, countWebhookBacklog, readPendingDeliveries } from './webhook-backlog.ts';
export {
  attemptsOf,
  createTestDelivery,
  findDelivery,
  listDeliveries,
  retryDelivery,
  toDeliveryOut,
  WebhookDeliveryOut,
} from './webhook-deliveries.ts';
export type { OutboxFollower, WebhookAttemptRow, WebhookDeliveryRow } from './webhook-deliveries.ts';
export {
  checkEndpointUrl,
  findWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookEndpoints,
  TEST_EVENT_TYPE,
  toWebhookEndpointOut,
  WEBHOOK_EVENT_TYPES,
  WebhookEndpointOut,
} from './webhook-endpoints.ts';
export type { WebhookEndpointRow, WebhookEventType } from './webhook-endpoints.ts';
export { webhookJobHandlers } from './webhook-jobs.ts';
export { deleteFinishedDeliveries, deleteOldEvents, rewriteEventPayloads } from './webhook-retention.ts';
export { createWebhookRuntime } from './webhook-runtime.ts';
export { WebhookSender } from './webhook-sender.ts';
export { registerWebhookRoutes } from './webhooks.routes.ts';
