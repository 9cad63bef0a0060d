// The admin API on APP_URL under /admin/v1 (docs/architecture.md#admin-api): organizations, events
// and ticket types, API clients, webhook endpoints, invitations, payments needing a refund, buyer
// erasures. Every route needs the admin key; envelopes as the partner API.
import type { AppContext } from '../context.ts';
import type { Host } from '../platform/index.ts';
import { requireAdmin } from './admin-auth.ts';
import { formatAdminSchemaErrors, rejectBrokenUnicode } from './admin-schemas.ts';
import { registerClientAdminRoutes } from './clients.admin.ts';
import { registerEventAdminRoutes } from './events.admin.ts';
import { registerInvitationAdminRoutes } from './invitations/invitations.admin.ts';
import { registerOrganizationAdminRoutes } from './organizations.admin.ts';
import { registerPaymentAdminRoutes } from './payments.admin.ts';
import { registerWebhookAdminRoutes } from './webhooks/webhooks.admin.ts';
import { registerBuyerErasureAdminRoutes } from './buyer-erasures.admin.ts';

export async function registerAdminRoutes(app: Host, ctx: AppContext) {
  await app.register(
    async (admin) => {
      // onRequest, before the body is read: without the key nothing else about the request matters.
      admin.addHook('onRequest', async (request) => requireAdmin(ctx, request));
      admin.addHook('preValidation', rejectBrokenUnicode);
      admin.setSchemaErrorFormatter(formatAdminSchemaErrors);
      await registerOrganizationAdminRoutes(admin, ctx);
      await registerEventAdminRoutes(admin, ctx);
      await registerClientAdminRoutes(admin, ctx);
      await registerWebhookAdminRoutes(admin, ctx);
      await registerPaymentAdminRoutes(admin, ctx);
      await registerInvitationAdminRoutes(admin, ctx);
      await registerBuyerErasureAdminRoutes(admin, ctx);
    },
    { prefix: '/admin/v1' },
  );
}
