// What the admin API and the partner API take to create or change a webhook endpoint, and what
// they answer with a new secret: the wire types (the checks are the actions', in actions/).
import { Type } from 'typebox';
import { ApiError } from '../platform/index.ts';
import { MAX_URL_LENGTH } from './address-policy.ts';
import { WEBHOOK_EVENT_TYPES, WebhookEndpointOut } from './webhook-endpoints.ts';

export const UrlIn = Type.String({
  maxLength: MAX_URL_LENGTH,
  description:
    'https URL of the receiver, on a public address (a service in development, NODE_ENV=development, also accepts http and local addresses)',
});
const eventsIn = (more: string) =>
  Type.Array(Type.String({ maxLength: 100 }), {
    minItems: 1,
    maxItems: 20,
    description: `Event types to receive; any of: ${WEBHOOK_EVENT_TYPES.join(', ')}. ${more}`,
  });

export const EndpointCreateIn = Type.Object(
  { url: UrlIn, events: Type.Optional(eventsIn('Default: order.paid')) },
  { additionalProperties: false },
);
export const EndpointPatchIn = Type.Object(
  { url: Type.Optional(UrlIn), events: Type.Optional(eventsIn('Left out: unchanged')) },
  { additionalProperties: false },
);

/** The endpoint with its new secret, in the answer that creates it. */
export const EndpointCreatedOut = Type.Object({
  ...WebhookEndpointOut.properties,
  secret: Type.String({ description: 'whsec_...: shown once; store it now' }),
});
export const DeletedOut = Type.Object({ id: Type.String(), deleted: Type.Boolean() });

export function disabledConflict(): ApiError {
  return new ApiError('conflict', 'This webhook endpoint is disabled; enable it first.');
}
