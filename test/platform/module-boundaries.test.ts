// Module boundaries (.dependency-cruiser.cjs, scripts/check-boundaries.ts, run by `npm run lint`):
// the service keeps them, and a tree that breaks each rule once is refused with that rule's name.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  checkBoundaries,
  CONTEXT_FIELD_RULE,
  FOREIGN_SQL_RULE,
  formatViolation,
  MODULE_CYCLE_RULE,
  TABLE_REEXPORT_RULE,
  type BoundaryViolation,
} from '../../scripts/check-boundaries.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/boundaries', import.meta.url));

const brief = (v: BoundaryViolation) => `${v.rule}: ${v.from} -> ${v.to}`;

test('the service keeps its module boundaries', async () => {
  const violations = await checkBoundaries(ROOT);
  assert.deepEqual(violations.map(formatViolation), []);
});

describe('a tree with one violation of each rule', async () => {
  const violations = await checkBoundaries(FIXTURE);
  const found = violations.map(brief).sort();

  test('importing a file of another module other than its entry file is refused, from a module or the root', () => {
    assert.deepEqual(
      found.filter((v) => v.startsWith('only-entry-files')),
      [
        'only-entry-files: src/events/events.ts -> src/admin/events/list.ts',
        'only-entry-files: src/service.ts -> src/site/page.ts',
        'only-entry-files: src/site/receipt.ts -> src/orders/order-code.ts',
      ],
    );
  });

  test('platform importing a feature module is refused', () => {
    assert.ok(
      found.includes('platform-imports-no-module: src/platform/db.ts -> src/orders/index.ts'),
      found.join('\n'),
    );
  });

  test('context.ts, which platform may import, importing a feature module is refused', () => {
    assert.ok(
      found.includes('platform-imports-no-module: src/context.ts -> src/checkout/session.ts'),
      found.join('\n'),
    );
  });

  test("a module importing another module's schema file is refused; a schema file and db-schema.ts may", () => {
    assert.deepEqual(
      found.filter((v) => v.startsWith('no-foreign-schema-imports')),
      ['no-foreign-schema-imports: src/payments/refunds.ts -> src/orders/orders.schema.ts'],
    );
  });

  test('importing db-schema.ts, which gathers every table for the migrations, is refused', () => {
    assert.ok(
      found.includes('no-db-schema-imports: src/site/all-tables.ts -> src/db-schema.ts'),
      found.join('\n'),
    );
  });

  test('a table re-exported by a file that is not a schema file is refused', () => {
    assert.deepEqual(
      found.filter((v) => v.startsWith(TABLE_REEXPORT_RULE)),
      [`${TABLE_REEXPORT_RULE}: src/races/race-tables.ts -> src/races/races.schema.ts`],
    );
  });

  test("SQL text naming another module's table is refused; naming its own is not", () => {
    assert.deepEqual(
      found.filter((v) => v.startsWith(FOREIGN_SQL_RULE)),
      [`${FOREIGN_SQL_RULE}: src/site/race-count.ts -> races (src/races)`],
    );
  });

  test("reading another module's AppContext field, which no import of the reader's module declares, is refused", () => {
    assert.deepEqual(
      found.filter((v) => v.startsWith(CONTEXT_FIELD_RULE)),
      [
        // by type, whatever the variable is called: a property, an optional chain, a key, a Pick
        `${CONTEXT_FIELD_RULE}: src/races/race-fees.ts:10 -> gateway (src/payments)`,
        `${CONTEXT_FIELD_RULE}: src/races/race-fees.ts:11 -> gateway (src/payments)`,
        `${CONTEXT_FIELD_RULE}: src/races/race-fees.ts:12 -> gateway (src/payments)`,
        `${CONTEXT_FIELD_RULE}: src/races/race-fees.ts:9 -> gateway (src/payments)`,
        // destructured: a parameter, a renamed const, an assignment and one nested in it
        `${CONTEXT_FIELD_RULE}: src/races/race-gateway.ts:13 -> gateway (src/payments)`,
        `${CONTEXT_FIELD_RULE}: src/races/race-gateway.ts:15 -> gateway (src/payments)`,
        `${CONTEXT_FIELD_RULE}: src/races/race-gateway.ts:4 -> gateway (src/payments)`,
        `${CONTEXT_FIELD_RULE}: src/races/race-gateway.ts:7 -> gateway (src/payments)`,
      ],
    );
  });

  // payments/payment-gateway.ts (the owner), passes/pass-fees.ts (imports payments), site/pass-page.ts
  // (imports passes) and service.ts (a root file) read the field too; race-fees.ts reads a field
  // of that name on another type, and platform's config.
  test('the owner, a module importing it directly or through another, and a root file read its field', () => {
    const readers = ['src/payments/', 'src/passes/', 'src/site/pass-page.ts', 'src/service.ts'];
    const refused = violations.filter((v) => v.rule === CONTEXT_FIELD_RULE).map((v) => v.from);
    assert.deepEqual(
      refused.filter((from) => readers.some((reader) => from.startsWith(reader))),
      [],
    );
    assert.ok(
      refused.every((from) => from.startsWith('src/races/race-')),
      refused.join('\n'),
    );
  });

  test('a cycle between modules through files that form no file cycle is refused', () => {
    const cycle = violations.find((v) => v.rule === MODULE_CYCLE_RULE && v.from === 'src/checkout');
    assert.ok(cycle, found.join('\n'));
    assert.equal(cycle.to, 'src/orders');
    assert.deepEqual(cycle.cycle, [
      'src/checkout -> src/orders (src/checkout/session.ts -> src/orders/index.ts)',
      'src/orders -> src/checkout (src/orders/create-order.ts -> src/checkout/index.ts)',
    ]);
  });

  test("a cycle through another module's subfolder is refused", () => {
    assert.ok(found.includes(`${MODULE_CYCLE_RULE}: src/admin -> src/events`), found.join('\n'));
  });

  // Nor does another module's schema file count against the entry file rule (refunds.ts is refused
  // by the schema rule alone), nor context.ts or config.ts importing platform's files.
  test('these and nothing else: neither a module importing its own subfolder nor a foreign key makes a cycle', () => {
    assert.deepEqual(found, [
      'no-db-schema-imports: src/site/all-tables.ts -> src/db-schema.ts',
      ...found.filter((v) => v.startsWith(CONTEXT_FIELD_RULE)),
      'no-foreign-schema-imports: src/payments/refunds.ts -> src/orders/orders.schema.ts',
      `${FOREIGN_SQL_RULE}: src/site/race-count.ts -> races (src/races)`,
      `${MODULE_CYCLE_RULE}: src/admin -> src/events`,
      `${MODULE_CYCLE_RULE}: src/checkout -> src/orders`,
      `${TABLE_REEXPORT_RULE}: src/races/race-tables.ts -> src/races/races.schema.ts`,
      'only-entry-files: src/events/events.ts -> src/admin/events/list.ts',
      'only-entry-files: src/service.ts -> src/site/page.ts',
      'only-entry-files: src/site/receipt.ts -> src/orders/order-code.ts',
      'platform-imports-no-module: src/context.ts -> src/checkout/session.ts',
      'platform-imports-no-module: src/platform/db.ts -> src/orders/index.ts',
    ]);
  });

  test('the lint step fails on it, naming each violation', async () => {
    const run = promisify(execFile)(process.execPath, ['scripts/check-boundaries.ts', FIXTURE], {
      cwd: ROOT,
    });
    const failure = (await run.then(
      () => assert.fail('check-boundaries passed a tree with violations'),
      (error: unknown) => error,
    )) as { code: number; stderr: string };
    assert.equal(failure.code, 1);
    for (const line of found) assert.ok(failure.stderr.includes(line), `${line}\n${failure.stderr}`);
  });
});
