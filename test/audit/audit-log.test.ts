// The audit log: entries written in the caller's transaction (rolled back with it), read newest
// first per organization, paged by id, and kept after the acting member is gone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { listAuditEvents, recordAudit, type Actor } from '../../src/audit/audit-log.ts';
import { members } from '../../src/members/members.schema.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { join, makeOrg } from '../members/members-helpers.ts';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h.close();
});

const operator: Actor = { memberId: null, label: 'operator', ip: null };

test('entries are listed newest first for their organization only, a page at a time', async () => {
  const db = h.service.ctx.database.db;
  const [org, other] = [await makeOrg(h), await makeOrg(h)];
  for (const targetId of ['cli_a', 'cli_b', 'cli_c']) {
    await recordAudit(
      db,
      { organizationId: org.id, actor: operator, action: 'client.created', targetType: 'client', targetId },
      h.clock.now(),
    );
  }
  await recordAudit(
    db,
    {
      organizationId: other.id,
      actor: operator,
      action: 'client.revoked',
      targetType: 'client',
      targetId: 'cli_x',
    },
    h.clock.now(),
  );
  const first = await listAuditEvents(db, org.id, { limit: 2 });
  assert.deepEqual(
    first.rows.map((r) => r.targetId),
    ['cli_c', 'cli_b'],
  );
  assert.equal(first.hasMore, true);
  const second = await listAuditEvents(db, org.id, { limit: 2, before: first.rows.at(-1)!.id });
  assert.deepEqual(
    second.rows.map((r) => r.targetId),
    ['cli_a'],
  );
  assert.equal(second.hasMore, false);
});

test('an entry written in a transaction that fails is not kept', async () => {
  const org = await makeOrg(h);
  await assert.rejects(
    h.service.ctx.database.transaction(async (tx) => {
      await recordAudit(
        tx,
        {
          organizationId: org.id,
          actor: operator,
          action: 'client.revoked',
          targetType: 'client',
          targetId: 'cli_z',
        },
        h.clock.now(),
      );
      throw new Error('the change failed');
    }),
    /the change failed/,
  );
  const { rows } = await listAuditEvents(h.service.ctx.database.db, org.id, { limit: 10 });
  assert.equal(rows.length, 0);
});

test("a deleted member's entries stay, under the email they acted with", async () => {
  const db = h.service.ctx.database.db;
  const org = await makeOrg(h);
  const member = await join(h, org.id, { role: 'admin' });
  await recordAudit(
    db,
    {
      organizationId: org.id,
      actor: { memberId: member.id, label: member.email, ip: '203.0.113.9' },
      action: 'client.scopes_changed',
      targetType: 'client',
      targetId: 'cli_q',
      details: { scopes: ['events:read'] },
    },
    h.clock.now(),
  );
  await db.delete(members).where(eq(members.id, member.id));
  const [row] = (await listAuditEvents(db, org.id, { limit: 1 })).rows;
  assert.equal(row?.actorMemberId, null);
  assert.equal(row?.actorLabel, member.email);
  assert.equal(row?.ip, '203.0.113.9');
  assert.deepEqual(row?.details, { scopes: ['events:read'] });
});
