// The admin API on APP_URL under /admin/v1 (DESIGN.md section 5).
import type { AppContext } from '../context.ts';
import type { Host } from '../platform/http.ts';
import { requireAdmin } from './admin-auth.ts';

export async function registerAdminRoutes(app: Host, ctx: AppContext) {
  await app.register(
    async (admin) => {
      admin.addHook('preHandler', async (request) => requireAdmin(ctx, request));
    },
    { prefix: '/admin/v1' },
  );
}
