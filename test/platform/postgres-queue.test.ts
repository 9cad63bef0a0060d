// The postgres.js queue replaced at install (scripts/patch-postgres-queue.mjs): the installed driver
// carries it in every module format, it behaves exactly like a plain array queue, and the install
// step touches nothing it does not recognise.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { MARKER, patchPostgresQueue, REPLACEMENT } from '../../scripts/patch-postgres-queue.mjs';

// require.resolve('postgres') is cjs/src/index.js; the package folder is two levels up.
const packageDir = join(dirname(createRequire(import.meta.url).resolve('postgres')), '..', '..');

interface DriverQueue<T> {
  readonly length: number;
  push(x: T): T;
  shift(): T | undefined;
  remove(x: T): T | null;
}

describe('postgres.js queue', () => {
  test('the installed driver uses the compacting queue in every module format', () => {
    assert.equal(readFileSync(join(packageDir, 'src/queue.js'), 'utf8'), REPLACEMENT.esm);
    assert.equal(readFileSync(join(packageDir, 'cf/src/queue.js'), 'utf8'), REPLACEMENT.esm);
    assert.equal(readFileSync(join(packageDir, 'cjs/src/queue.js'), 'utf8'), REPLACEMENT.cjs);
  });

  test('behaves like a plain array queue under any sequence of push, shift and remove', async () => {
    const { default: Queue } = (await import(pathToFileURL(join(packageDir, 'src/queue.js')).href)) as {
      default: <T>(initial?: T[]) => DriverQueue<T>;
    };
    const op = fc.oneof(
      fc.record({ kind: fc.constant('push' as const) }),
      fc.record({ kind: fc.constant('shift' as const) }),
      fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.nat(20), { maxLength: 5 }),
        fc.array(op, { maxLength: 400 }),
        (initial, ops) => {
          // Items are objects (the driver queues connections and queries), compared by identity.
          const items = initial.map((n) => ({ n }));
          const fresh = Queue(items);
          const mirror = [...items];
          assert.equal(fresh.length, mirror.length);
          let next = 0;
          for (const step of ops) {
            if (step.kind === 'push') {
              const item = { n: 1000 + next++ };
              assert.equal(fresh.push(item), item);
              mirror.push(item);
            } else if (step.kind === 'shift') {
              if (mirror.length === 0) continue; // the driver checks length before shifting
              assert.equal(fresh.shift(), mirror.shift());
            } else {
              // Remove something present, or something already gone (the driver does both).
              const gone = { n: -1 };
              const target =
                mirror.length > 0 && step.pick % 3 !== 0 ? mirror[step.pick % mirror.length]! : gone;
              const at = mirror.indexOf(target);
              if (at !== -1) mirror.splice(at, 1);
              assert.equal(fresh.remove(target), at === -1 ? null : target);
            }
            assert.equal(fresh.length, mirror.length);
          }
          // What is left comes out in order.
          while (mirror.length > 0) assert.equal(fresh.shift(), mirror.shift());
          assert.equal(fresh.length, 0);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('the install step replaces only the 3.4.9 text, and leaves other text alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pg-queue-'));
    try {
      for (const sub of ['src', 'cf/src', 'cjs/src']) mkdirSync(join(dir, sub), { recursive: true });
      writeFileSync(join(dir, 'src/queue.js'), REPLACEMENT.esm);
      writeFileSync(join(dir, 'cf/src/queue.js'), 'export default function Queue() {}\n');
      // cjs/src/queue.js missing: nothing to do for it
      assert.deepEqual(patchPostgresQueue(dir), [
        'src/queue.js: already replaced',
        'cf/src/queue.js: UNKNOWN TEXT, left alone (review scripts/patch-postgres-queue.mjs)',
      ]);
      assert.equal(
        readFileSync(join(dir, 'cf/src/queue.js'), 'utf8'),
        'export default function Queue() {}\n',
      );
      assert.ok(REPLACEMENT.esm.includes(MARKER) && REPLACEMENT.cjs.includes(MARKER));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
