// The operator's admin API: organizations, events, clients, webhooks, invitations, refunds, erasures.
export { ensureAdminKey } from './admin-auth.ts';
export { MAX_INT, Name } from './admin-schemas.ts';
export { registerAdminRoutes } from './admin.routes.ts';
