// Type-aware lint of src/ (eslint.config.js): a promise nobody awaits, returns, catches or voids on
// purpose, and a promise handed to what expects a plain callback, fail `npm run lint`, because
// either one can end the process with an unhandled rejection. Linted in a copy of the
// configuration with one seeded file, so the project's own tree is never touched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const SEEDED = `
export async function save(): Promise<void> {}

export function dropsIt(): void {
  save();
}

export function handsItOver(emitter: { on(name: string, listener: () => void): void }): void {
  emitter.on('data', async () => {
    await save();
  });
}

export function meansIt(): void {
  void save().catch(() => {});
}
`;

test('a floating promise and a promise where a callback goes fail lint in src/', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lint-'));
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    copyFileSync(join(ROOT, 'eslint.config.js'), join(dir, 'eslint.config.js'));
    copyFileSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'seeded.ts'), SEEDED);
    const [result] = await new ESLint({ cwd: dir }).lintFiles(['src/seeded.ts']);
    const found = result!.messages.map((m) => `${m.line}: ${m.ruleId}`);
    assert.deepEqual(found, [
      '5: @typescript-eslint/no-floating-promises',
      '9: @typescript-eslint/no-misused-promises',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
