// The admin webhook routes' wire types: endpoint bodies in, the answers that show a secret (create,
// rotate), the delivery list, path parameters and the delivery filters. An endpoint and a delivery
// out are the webhooks module's WebhookEndpointOut and WebhookDeliveryOut.
import { Type } from 'typebox';
import { MAX_URL_LENGTH } from '../../webhooks/address-policy.ts';
import { DELIVERY_STATUSES, WebhookDeliveryOut } from '../../webhooks/webhook-deliveries.ts';
import { WEBHOOK_EVENT_TYPES, WebhookEndpointOut } from '../../webhooks/webhook-endpoints.ts';
import { Timestamp } from '../../platform/schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const UrlIn = Type.String({
  maxLength: MAX_URL_LENGTH,
  description: 'https URL of the receiver (http and private addresses only with WEBHOOK_ALLOW_PRIVATE_URLS)',
});
const EventsIn = Type.Array(Type.String({ maxLength: 100 }), {
  minItems: 1,
  maxItems: 20,
  description: `Event types to receive; any of: ${WEBHOOK_EVENT_TYPES.join(', ')}. Default: order.paid`,
});

export const EndpointCreateIn = Type.Object(
  { url: UrlIn, events: Type.Optional(EventsIn) },
  { additionalProperties: false },
);
export const EndpointPatchIn = Type.Object(
  { url: Type.Optional(UrlIn), events: Type.Optional(EventsIn) },
  { additionalProperties: false },
);

/** The endpoint (webhooks' WebhookEndpointOut) with its new secret, in the answer that creates it. */
export const EndpointCreatedOut = Type.Object({
  ...WebhookEndpointOut.properties,
  secret: Type.String({ description: 'whsec_...: shown once; store it now' }),
});
export const SecretOut = Type.Object({
  id: Type.String(),
  secret: Type.String({ description: 'whsec_...: shown once; store it now' }),
  previous_secret_expires_at: Timestamp,
});
export const DeletedOut = Type.Object({ id: Type.String(), deleted: Type.Boolean() });

export const DeliveryListOut = Type.Object({
  deliveries: Type.Array(WebhookDeliveryOut),
  next_cursor: Nullable(Type.String()),
  has_more: Type.Boolean(),
});

export const DeliveryParams = Type.Object({ id: Type.String(), delivery_id: Type.String() });
export const DeliveryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ description: '1 to 50 (clamped); default 20' })),
  cursor: Type.Optional(Type.String()),
  status: Type.Optional(Type.Enum(DELIVERY_STATUSES)),
});
