// POST /webhook-endpoints/:id/rotate-secret: a new signing secret, shown once; the previous one
// keeps signing alongside it until previous_secret_expires_at.
import { SecretOut } from './webhook-admin.schema.ts';
import type { AppContext } from '../../context.ts';
import { Envelope, envelope, refusalError, type Host } from '../../platform/index.ts';
import { rotateWebhookSecret } from '../../webhooks/index.ts';
import { operatorOf } from '../admin-audit.ts';
import { assertId, errorResponses, IdParams, NoBody } from '../admin-schemas.ts';

export function rotateWebhookSecretRoute(actions: Host, ctx: AppContext): void {
  actions.post(
    '/webhook-endpoints/:id/rotate-secret',
    {
      schema: {
        params: IdParams,
        body: NoBody,
        response: { 200: Envelope(SecretOut, 'Webhook secret rotated'), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      assertId(request.params.id, 'whe', 'webhook endpoint');
      const outcome = await rotateWebhookSecret(ctx, {
        actor: operatorOf(request),
        endpointId: request.params.id,
      });
      if (!('done' in outcome)) throw refusalError(outcome, 'webhook endpoint');
      const rotated = outcome.done;
      return envelope(200, 'Webhook secret rotated', {
        id: rotated.endpoint.id,
        secret: rotated.secret,
        previous_secret_expires_at: rotated.endpoint.previousSecretExpiresAt!.toISOString(),
      });
    },
  );
}
