// Reads of another module that carry their organization along in the same statement (a request's
// client, an event on sale): this module's columns and join for them, so that only this module
// names its table.
import { eq, getTableColumns } from 'drizzle-orm';
import type { PgColumn, PgSelect } from 'drizzle-orm/pg-core';
import { organizations } from './organizations.schema.ts';

/** The organization's columns for another module's select; the whole object reads as an OrganizationRow. */
export const organizationColumns = getTableColumns(organizations);

/**
 * `query` inner-joined to the organization whose id is `organizationId`, a column of the query's
 * table. Takes a dynamic select (`.$dynamic()`) with an explicit selection, whose result type an
 * inner join leaves as it was: hence the cast, which Drizzle's generic join type cannot see.
 */
export function joinOrganization<T extends PgSelect>(query: T, organizationId: PgColumn): T {
  return query.innerJoin(organizations, eq(organizations.id, organizationId)) as unknown as T;
}
