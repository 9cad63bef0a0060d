// The published shape of @partner-ticketing/sdk: its tsc build (as `npm run sdk:build` makes it)
// has the JavaScript and declarations its package.json exports name, and the built module loads
// with only its declared runtime dependency.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SDK = join(ROOT, 'packages/sdk');

test('the build has what package.json exports, and it loads', async () => {
  const manifest = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8')) as {
    name: string;
    type: string;
    exports: { '.': { types: string; default: string } };
    dependencies: Record<string, string>;
  };
  assert.equal(manifest.name, '@partner-ticketing/sdk');
  assert.equal(manifest.type, 'module');
  assert.deepEqual(Object.keys(manifest.dependencies), ['standardwebhooks']);
  // Under node_modules/.cache so the built files resolve standardwebhooks as an installed package would.
  const cache = join(ROOT, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const out = mkdtempSync(join(cache, 'sdk-build-'));
  try {
    execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(SDK, 'tsconfig.json'), '--outDir', out],
      { stdio: 'pipe' },
    );
    const built = (path: string) => join(out, path.replace(/^\.\/dist\//, ''));
    const { types, default: entry } = manifest.exports['.'];
    assert.ok(existsSync(built(types)), `${types} is built`);
    assert.ok(existsSync(built(entry)), `${entry} is built`);
    assert.doesNotMatch(
      readFileSync(built(entry), 'utf8'),
      /from ['"]\.\/[^'"]+\.ts['"]/,
      'imports end in .js',
    );
    const sdk = (await import(pathToFileURL(built(entry)).href)) as Record<string, unknown>;
    for (const name of ['TicketingClient', 'TicketingError', 'WebhookVerificationError', 'verifyWebhook']) {
      assert.equal(typeof sdk[name], 'function', name);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
