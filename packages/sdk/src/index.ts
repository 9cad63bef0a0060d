// @partner-ticketing/sdk: the public surface.
export { TicketingClient, type TicketingClientOptions } from './client.ts';
export { TicketingError, WebhookVerificationError, type FieldError } from './errors.ts';
export { verifyWebhook, webhooks, type WebhookHeaders } from './webhooks.ts';
export type * from './types.ts';
export type { paths, components } from './openapi.ts';
