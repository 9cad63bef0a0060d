// Admin routes for invitations to an organization (docs/architecture.md#admin-api): create (the
// link is shown once) and list the pending ones. One file per route in this folder; this one
// registers them.
import type { AppContext } from '../../context.ts';
import type { Host } from '../../platform/index.ts';
import { createInvitationRoute } from './create-invitation.ts';
import { listInvitationsRoute } from './list-invitations.ts';

export async function registerInvitationAdminRoutes(admin: Host, ctx: AppContext) {
  createInvitationRoute(admin, ctx);
  listInvitationsRoute(admin, ctx);
}
