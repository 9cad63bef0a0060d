// Events, ticket types and their inventory, prices and fees, and the partner event routes.
export { addTicketType } from './actions/add-ticket-type.ts';
export {
  changeEventStatus,
  STATUS_CHANGE_NAMES,
  statusChangeAllowed,
} from './actions/change-event-status.ts';
export type { StatusChange } from './actions/change-event-status.ts';
export { createEvent } from './actions/create-event.ts';
export { findEventFor } from './actions/event-actor.ts';
export { updateEvent } from './actions/update-event.ts';
export { updateTicketType } from './actions/update-ticket-type.ts';
export {
  asksEmergencyContact,
  EMERGENCY_CONTACT_NAME,
  EMERGENCY_CONTACT_PHONE,
  isEmergencyContactKey,
  withEmergencyContact,
} from './emergency-contact.ts';
export { listEventsEndedBefore } from './ended-events.ts';
export {
  EventDetailOut,
  EventListItemOut,
  TicketTypeOut,
  toEventDetail,
  toEventListItem,
  toTicketTypeOut,
} from './event-out.ts';
export { checkEventRules, isRegistrationOpen, isTimeZone } from './event-rules.ts';
export {
  bodyEventOf,
  findEventOnSale,
  readBodyEvent,
  readEventOnSale,
  readSessionEvent,
} from './events-on-sale.ts';
export type { SessionEvent } from './events-on-sale.ts';
export { clampLimit, registerEventRoutes } from './events.routes.ts';
export {
  EVENT_STATUSES,
  EVENT_VISIBILITIES,
  findEvent,
  insertEvent,
  listEventsOfOrganization,
  remainingOf,
  suggestHandle,
  ticketTypesOf,
} from './events.ts';
export type {
  AdditionalQuestion,
  EventInput,
  EventPatch,
  EventRow,
  EventWithTickets,
  TicketTypeInput,
  TicketTypeRow,
} from './events.ts';
export { feeFor, MAX_FIXED_FEE_MINOR, MAX_PRICE_MINOR, methodFee, priceByMethod } from './fees.ts';
export type { PricedMethod } from './fees.ts';
export {
  capacityRefusal,
  convertHeldToPaid,
  countTickets,
  holdTickets,
  isCapacityRefusal,
  isUnlimited,
  lockTicketTypes,
  quantitiesOf,
  releaseTickets,
  takePaidIfAvailable,
  ticketCountUpdate,
  UNLIMITED_CAPACITY,
} from './inventory.ts';
export type { Quantities } from './inventory.ts';
