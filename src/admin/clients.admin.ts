// Admin routes for API clients: create (the secret is shown once), list, read, update scopes and
// allowlists, revoke, rotate the secret, regenerate the publishable key. One file per route in
// clients/.
import type { FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.ts';
import type { Host } from '../platform/index.ts';
import { createClientRoute } from './clients/create-client.ts';
import { getClientRoute } from './clients/get-client.ts';
import { listClientsRoute } from './clients/list-clients.ts';
import { regeneratePublishableKeyRoute } from './clients/regenerate-publishable-key.ts';
import { revokeClientRoute } from './clients/revoke-client.ts';
import { rotateClientSecretRoute } from './clients/rotate-client-secret.ts';
import { updateClientRoute } from './clients/update-client.ts';

export async function registerClientAdminRoutes(admin: Host, ctx: AppContext) {
  createClientRoute(admin, ctx);
  listClientsRoute(admin, ctx);
  getClientRoute(admin, ctx);
  updateClientRoute(admin, ctx);

  // The three actions take no body: absent, empty, or {} (even with a JSON content type).
  await admin.register(async (scope) => {
    const actions = scope.withTypeProvider<TypeBoxTypeProvider>();
    const jsonParser = actions.getDefaultJsonParser('error', 'error');
    actions.removeContentTypeParser('application/json');
    actions.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, {});
      // the default parser is the callback form: it answers through `done` and returns nothing
      void jsonParser(request, body as string, done);
    });
    actions.addHook('preValidation', async (request: FastifyRequest) => {
      if (request.body === undefined) request.body = {};
    });

    revokeClientRoute(actions, ctx);
    rotateClientSecretRoute(actions, ctx);
    regeneratePublishableKeyRoute(actions, ctx);
  });
}
