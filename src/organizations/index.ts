// Organizations, their fee schedules, and the join other modules read them through.
export { checkOrganizationSettings, updateOrganizationSettings } from './actions/update-organization.ts';
export type { OrganizationPatch } from './actions/update-organization.ts';
export { joinOrganization, organizationColumns } from './join-organization.ts';
export {
  bumpCatalogVersion,
  countOrganizations,
  createOrganization,
  findOrganization,
  listOrganizations,
} from './organizations.ts';
export type { FeeSchedule, MethodFee, OrganizationRow } from './organizations.ts';
