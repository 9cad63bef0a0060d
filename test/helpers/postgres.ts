// PostgreSQL-only test helpers.
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/platform/db.ts';

/**
 * Kills the backend that waits on a lock held by backend `holderPid`, once one does (polled every
 * 20 ms for up to 2 s), and answers how many were killed. Only that backend: other test files
 * running side by side may wait on locks of their own.
 */
export async function killBackendBlockedBy(database: Database, holderPid: number): Promise<number> {
  let killed = 0;
  for (let i = 0; i < 100 && killed === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const rows = await database.rows<{ killed: boolean }>(
      sql`SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
          WHERE ${holderPid}::int = ANY(pg_blocking_pids(pid))`,
    );
    killed = rows.filter((r) => r.killed).length;
  }
  return killed;
}
