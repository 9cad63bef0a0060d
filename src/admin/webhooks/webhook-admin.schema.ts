// The admin webhook routes' own wire types: the rotation's answer and the delivery's path
// parameters. Endpoint bodies, answers and the delivery log are the webhooks module's
// (endpoint-input.ts, WebhookEndpointOut, delivery-log.ts).
import { Type } from 'typebox';
import { Timestamp } from '../../platform/index.ts';

export const SecretOut = Type.Object({
  id: Type.String(),
  secret: Type.String({ description: 'whsec_...: shown once; store it now' }),
  previous_secret_expires_at: Timestamp,
});

export const DeliveryParams = Type.Object({ id: Type.String(), delivery_id: Type.String() });
