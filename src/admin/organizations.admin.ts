// Admin routes for organizations: create, list, read, update (name, payments, support email, fees).
// One file per route in organizations/.
import type { AppContext } from '../context.ts';
import type { Host } from '../platform/index.ts';
import { createOrganizationRoute } from './organizations/create-organization.ts';
import { getOrganizationRoute } from './organizations/get-organization.ts';
import { listOrganizationsRoute } from './organizations/list-organizations.ts';
import { updateOrganizationRoute } from './organizations/update-organization.ts';

export async function registerOrganizationAdminRoutes(admin: Host, ctx: AppContext) {
  createOrganizationRoute(admin, ctx);
  listOrganizationsRoute(admin, ctx);
  getOrganizationRoute(admin, ctx);
  updateOrganizationRoute(admin, ctx);
}
