// The registrations that make a race's field: confirmed registrations of paid orders, read by
// other modules (the start list) through this module's columns and joins, so that only this
// module names its tables.
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { PgColumn, PgSelect, PgSelectBase, SelectedFields } from 'drizzle-orm/pg-core';
import type { Executor } from '../platform/index.ts';
import { orders, registrations } from './orders.schema.ts';

/** A runner's columns; the order code comes from their order. */
export const rosterColumns = {
  registrationId: registrations.id,
  ticketTypeId: registrations.ticketTypeId,
  participantName: registrations.participantName,
  dateOfBirth: registrations.dateOfBirth,
  answers: registrations.answers,
  createdAt: registrations.createdAt,
  orderCode: orders.orderCode,
};

/** What an export of runners adds: the registration's price and fee, and its order's buyer. */
export const rosterExportColumns = {
  distanceKm: registrations.distanceKm,
  priceMinor: registrations.priceMinor,
  feeMinor: registrations.feeMinor,
  currency: orders.currency,
  buyerName: orders.buyerName,
  buyerEmail: orders.buyerEmail,
  buyerPhone: orders.buyerPhone,
};

const inPaidOrder = and(
  eq(orders.id, registrations.orderId),
  eq(orders.status, 'paid'),
  eq(registrations.status, 'confirmed'),
);

/** A dynamic select over the organization's confirmed registrations of paid orders. */
export function selectRoster<S extends SelectedFields>(db: Executor, selection: S, organizationId: string) {
  const query = db
    .select(selection as SelectedFields)
    .from(registrations)
    .$dynamic();
  const joined = query.innerJoin(orders, and(inPaidOrder, eq(registrations.organizationId, organizationId)));
  // The joined table's columns are in `selection`; Drizzle's join type cannot follow a generic one.
  return joined as unknown as PgSelectBase<
    'registrations',
    S,
    'partial',
    Record<'registrations' | 'orders', 'not-null'>,
    true
  >;
}

/**
 * `query` inner-joined to the confirmed registration of a paid order whose id is `registrationId`,
 * a column of the query's table (the inner join leaves the selection's type as it was: the cast).
 */
export function joinRoster<T extends PgSelect>(query: T, registrationId: PgColumn): T {
  return query
    .innerJoin(registrations, eq(registrations.id, registrationId))
    .innerJoin(orders, inPaidOrder) as unknown as T;
}

/** A confirmed registration of a paid order, as a ticket shows it. */
export interface ConfirmedRegistration {
  registrationId: string;
  orderId: string;
  organizationId: string;
  eventId: string;
  ticketTypeId: string;
  ticketLabel: string;
  distanceKm: number;
  participantName: string;
  position: number;
}

const confirmedColumns = {
  registrationId: registrations.id,
  orderId: registrations.orderId,
  organizationId: registrations.organizationId,
  eventId: orders.eventId,
  ticketTypeId: registrations.ticketTypeId,
  ticketLabel: registrations.ticketLabel,
  distanceKm: registrations.distanceKm,
  participantName: registrations.participantName,
  position: registrations.position,
};

/**
 * The confirmed registrations of a paid order (by order id), or the one with this registration id
 * while it is confirmed in a paid order; in the order's own order. Pending and cancelled ones, and
 * those of orders not paid (a refund cancels them), are left out.
 */
export async function confirmedRegistrations(
  db: Executor,
  by: { orderId: string } | { registrationIds: string[] },
): Promise<ConfirmedRegistration[]> {
  if ('registrationIds' in by && by.registrationIds.length === 0) return [];
  return db
    .select(confirmedColumns)
    .from(registrations)
    .innerJoin(orders, inPaidOrder)
    .where(
      'orderId' in by ? eq(registrations.orderId, by.orderId) : inArray(registrations.id, by.registrationIds),
    )
    .orderBy(asc(registrations.orderId), asc(registrations.position), asc(registrations.id));
}
