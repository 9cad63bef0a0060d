// Admin routes for events and ticket types: create (event and ticket types in one transaction),
// list any status, read, update any field, add and update ticket types. One file per route in
// events/; the schema checks each field, the cross-field rules (event-admin-checks.ts) run on the
// merged result.
import type { AppContext } from '../context.ts';
import type { Host } from '../platform/index.ts';
import { addTicketTypeRoute } from './events/add-ticket-type.ts';
import { createEventRoute } from './events/create-event.ts';
import { getEventRoute } from './events/get-event.ts';
import { listEventsRoute } from './events/list-events.ts';
import { updateEventRoute } from './events/update-event.ts';
import { updateTicketTypeRoute } from './events/update-ticket-type.ts';

export async function registerEventAdminRoutes(admin: Host, ctx: AppContext) {
  createEventRoute(admin, ctx);
  listEventsRoute(admin, ctx);
  getEventRoute(admin, ctx);
  updateEventRoute(admin, ctx);
  addTicketTypeRoute(admin, ctx);
  updateTicketTypeRoute(admin, ctx);
}
