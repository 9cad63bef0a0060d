// Organizations: create, read and update. A fee schedule names a fee per payment method; one it
// does not name takes the method's default (docs/contract.md#fees).
import { eq, sql } from 'drizzle-orm';
import { newId, type Executor } from '../platform/index.ts';
import { type FeeSchedule, organizations } from './organizations.schema.ts';

export type { FeeSchedule, MethodFee } from './organizations.schema.ts';
export type OrganizationRow = typeof organizations.$inferSelect;

export async function createOrganization(
  db: Executor,
  input: {
    name: string;
    paymentsEnabled?: boolean;
    supportEmail?: string;
    fees?: FeeSchedule;
    timezone?: string;
    currency?: string;
    /** the methods that need turning on (cards) it offers from the start */
    optedInMethods?: string[];
  },
): Promise<OrganizationRow> {
  const [row] = await db
    .insert(organizations)
    .values({
      id: newId('org'),
      name: input.name,
      paymentsEnabled: input.paymentsEnabled ?? false,
      supportEmail: input.supportEmail ?? '',
      fees: input.fees ?? {},
      ...(input.timezone !== undefined && { timezone: input.timezone }),
      ...(input.currency !== undefined && { currency: input.currency }),
      ...(input.optedInMethods !== undefined && { optedInMethods: input.optedInMethods }),
    })
    .returning();
  return row!;
}

/** How many organizations there are (the demo seed runs only on an empty database). */
export async function countOrganizations(db: Executor): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(organizations);
  return row?.n ?? 0;
}

export async function findOrganization(db: Executor, id: string): Promise<OrganizationRow | undefined> {
  const [row] = await db.select().from(organizations).where(eq(organizations.id, id));
  return row;
}

export async function listOrganizations(db: Executor): Promise<OrganizationRow[]> {
  return db.select().from(organizations).orderBy(organizations.createdAt, organizations.id);
}

export async function updateOrganization(
  db: Executor,
  id: string,
  input: {
    name?: string | undefined;
    paymentsEnabled?: boolean | undefined;
    supportEmail?: string | undefined;
    fees?: FeeSchedule | undefined;
    timezone?: string | undefined;
    currency?: string | undefined;
    optedInMethods?: string[] | undefined;
  },
  now: Date,
): Promise<OrganizationRow | undefined> {
  const [row] = await db
    .update(organizations)
    .set({
      ...(input.name !== undefined && { name: input.name }),
      ...(input.paymentsEnabled !== undefined && { paymentsEnabled: input.paymentsEnabled }),
      ...(input.supportEmail !== undefined && { supportEmail: input.supportEmail }),
      ...(input.fees !== undefined && { fees: input.fees }),
      ...(input.timezone !== undefined && { timezone: input.timezone }),
      ...(input.currency !== undefined && { currency: input.currency }),
      ...(input.optedInMethods !== undefined && { optedInMethods: input.optedInMethods }),
      catalogVersion: sql`${organizations.catalogVersion} + 1`,
      updatedAt: now,
    })
    .where(eq(organizations.id, id))
    .returning();
  return row;
}

/** Marks the organization's events as changed (see organizations.catalog_version). */
export async function bumpCatalogVersion(db: Executor, organizationId: string): Promise<void> {
  await db
    .update(organizations)
    .set({ catalogVersion: sql`${organizations.catalogVersion} + 1` })
    .where(eq(organizations.id, organizationId));
}
