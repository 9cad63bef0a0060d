// The admin webhook routes' own wire types: the rotation's answer, the delivery list, path
// parameters and the delivery filters. Endpoint bodies and answers are the webhooks module's
// (endpoint-input.ts, WebhookEndpointOut, WebhookDeliveryOut).
import { Type } from 'typebox';
import { DELIVERY_STATUSES, WebhookDeliveryOut } from '../../webhooks/index.ts';
import { Timestamp } from '../../platform/index.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const SecretOut = Type.Object({
  id: Type.String(),
  secret: Type.String({ description: 'whsec_...: shown once; store it now' }),
  previous_secret_expires_at: Timestamp,
});

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
