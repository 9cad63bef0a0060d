// Builds each host's Fastify instance without listening (main.ts listens; tests inject or listen).
import swagger from '@fastify/swagger';
import {
  recordApiRequests,
  refusePartnerCredentials,
  registerCors,
  registerTokenRoute,
  SCOPE_DESCRIPTIONS,
} from './auth/index.ts';
import { registerAdminRoutes } from './admin/index.ts';
import { appNotFound, registerAppRoutes } from './app/index.ts';
import { registerEventStreamRoutes, registerWebhookRoutes } from './webhooks/index.ts';
import type { AppContext } from './context.ts';
import { registerEventRoutes } from './events/index.ts';
import { registerCheckoutRoutes } from './checkout/index.ts';
import { registerCheckoutJs } from './embed/index.ts';
import { registerDocsRoutes } from './docs/index.ts';
import { registerOrderRoutes } from './orders/index.ts';
import { registerPaymentRoutes } from './payments/index.ts';
import { addErrorExamples, webhooksSection } from './openapi.ts';
import { createHost, ErrorOut, type Host } from './platform/index.ts';
import { observeRequests } from './metrics/index.ts';
import { registerSiteRoutes } from './site/index.ts';
import type { Logger } from 'pino';

/** Browser-callable paths (publishable key) and their methods, for CORS. */
const PUBLISHABLE_PATHS: Record<string, string[]> = {
  '/v1/events': ['GET'],
  '/v1/events/:eventId': ['GET'],
  '/v1/checkout-sessions': ['POST'],
};

export async function buildApiHost(ctx: AppContext, logger: Logger): Promise<Host> {
  const app = createHost(ctx, { name: 'api', logger });
  observeRequests(app, 'api', ctx);
  recordApiRequests(app, ctx);
  app.addSchema(ErrorOut);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Partner Ticketing API',
        version: '1.0.0',
        description:
          'List running events, start hosted or embedded checkouts, create, pay and read orders, and receive signed webhooks (see the webhooks section) at endpoints you register. Success responses use the envelope {code, message, data}, where code is the HTTP status; errors use {code, message, error_code, request_id}. The token endpoint answers in the bare OAuth 2.0 shape.',
      },
      servers: [{ url: ctx.config.apiUrl.origin }],
      webhooks: webhooksSection(),
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'Access token from POST /v1/oauth/token' },
          publishableKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Service-Publishable-Key',
            description:
              "Browser key; the request Origin must be one of the key's allowed domains. It grants at most events:read and checkout_sessions:write, whatever the client holds.",
          },
          clientCredentials: {
            type: 'oauth2',
            flows: {
              clientCredentials: {
                tokenUrl: `${ctx.config.apiUrl.origin}/v1/oauth/token`,
                scopes: SCOPE_DESCRIPTIONS,
              },
            },
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      addErrorExamples(document.openapiObject);
      return document.openapiObject;
    },
  });
  registerCors(app, ctx, PUBLISHABLE_PATHS);
  await registerTokenRoute(app, ctx);
  await registerEventRoutes(app, ctx);
  await registerCheckoutRoutes(app, ctx);
  await registerOrderRoutes(app, ctx);
  await registerPaymentRoutes(app, ctx);
  await registerWebhookRoutes(app, ctx);
  await registerEventStreamRoutes(app, ctx);
  await registerDocsRoutes(app, ctx);
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}

export async function buildSiteHost(ctx: AppContext, logger: Logger): Promise<Host> {
  const app = createHost(ctx, { name: 'site', logger });
  observeRequests(app, 'site', ctx);
  refusePartnerCredentials(app);
  await registerCheckoutJs(app, ctx);
  await registerSiteRoutes(app, ctx);
  return app;
}

export async function buildAppHost(ctx: AppContext, logger: Logger): Promise<Host> {
  const app = createHost(ctx, { name: 'app', logger, notFound: appNotFound(ctx) });
  observeRequests(app, 'app', ctx);
  refusePartnerCredentials(app);
  await registerAdminRoutes(app, ctx);
  await registerAppRoutes(app, ctx);
  return app;
}
