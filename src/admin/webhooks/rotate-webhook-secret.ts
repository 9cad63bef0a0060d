// POST /webhook-endpoints/:id/rotate-secret: a new signing secret, shown once; the previous one
// keeps signing alongside it until previous_secret_expires_at.
import { errorResponses, IdParams, NoBody } from '../admin-schemas.ts';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../platform/errors.ts';
import { envelope, type Host } from '../../platform/http.ts';
import { Envelope } from '../../platform/schemas.ts';
import { rotateWebhookSecret } from '../../webhooks/webhook-endpoints.ts';
import { endpointOr404 } from './webhook-admin-checks.ts';
import { SecretOut } from './webhook-admin.schema.ts';
import { auditedAsOperator, changeOf } from '../admin-audit.ts';

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
      const endpoint = await endpointOr404(ctx, request.params.id);
      const at = { organizationId: endpoint.organizationId, now: ctx.clock.now() };
      const change = changeOf('webhook_endpoint.secret_rotated', {
        type: 'webhook_endpoint',
        id: endpoint.id,
      });
      const rotated = await auditedAsOperator(ctx, request, at, [change], (tx) =>
        rotateWebhookSecret(tx, endpoint.id, at.now),
      );
      if (!rotated) throw notFound('webhook endpoint');
      return envelope(200, 'Webhook secret rotated', {
        id: rotated.endpoint.id,
        secret: rotated.secret,
        previous_secret_expires_at: rotated.endpoint.previousSecretExpiresAt!.toISOString(),
      });
    },
  );
}
