// build_info{version,commit}: the version from package.json, the commit from the file `npm run
// build` writes beside the built tree (GIT_COMMIT, else git at build time), "unknown" without one.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readBuildInfo } from '../../src/metrics/build-info.ts';
import { createMetrics } from '../../src/metrics/metrics.ts';
import { buildCommit, writeBuildInfo } from '../../src/metrics/write-build-info.ts';
import { parseMetrics } from './parse-metrics.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};
const COMMIT = '0123456789abcdef0123456789abcdef01234567';

const roots: string[] = [];
/** A project as a build leaves it: package.json at its root, the compiled module under dist/src/metrics/. */
function builtProject(): { root: string; moduleUrl: string } {
  const root = mkdtempSync(join(tmpdir(), 'build-info-'));
  roots.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'x', version: '9.8.7' }));
  mkdirSync(join(root, 'dist', 'src', 'metrics'), { recursive: true });
  return { root, moduleUrl: pathToFileURL(join(root, 'dist', 'src', 'metrics', 'build-info.js')).href };
}
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe('build info', () => {
  test('a built tree reports the commit its build wrote, and its package version', () => {
    const { root, moduleUrl } = builtProject();
    assert.deepEqual(readBuildInfo(moduleUrl), { version: '9.8.7', commit: 'unknown' });
    const written = writeBuildInfo(root, { GIT_COMMIT: COMMIT.toUpperCase() });
    assert.deepEqual(written, { path: join(root, 'dist', 'build-info.json'), commit: COMMIT });
    assert.deepEqual(readBuildInfo(moduleUrl), { version: '9.8.7', commit: COMMIT });
  });

  test('a commit that is no object name, or a file that is no JSON, is unknown', () => {
    const { root, moduleUrl } = builtProject();
    assert.equal(buildCommit(root, { GIT_COMMIT: 'main; rm -rf /' }), 'unknown');
    writeFileSync(join(root, 'dist', 'build-info.json'), JSON.stringify({ commit: '<script>' }));
    assert.equal(readBuildInfo(moduleUrl).commit, 'unknown');
    writeFileSync(join(root, 'dist', 'build-info.json'), '{ not json');
    assert.equal(readBuildInfo(moduleUrl).commit, 'unknown');
  });

  test('without GIT_COMMIT the build asks git, and outside a repository says unknown', () => {
    const { root } = builtProject();
    assert.equal(buildCommit(root, {}), 'unknown');
    // This checkout's HEAD, when git is on the machine.
    assert.match(buildCommit(process.cwd(), {}), /^([0-9a-f]{40,64}|unknown)$/);
  });

  test('build_info is 1, with the version of package.json; run from src/ the commit is unknown', async () => {
    const samples = parseMetrics(await createMetrics().registry.metrics());
    assert.equal(samples.get(`build_info{commit="unknown",version="${version}"}`), 1);
    assert.equal([...samples.keys()].filter((key) => key.startsWith('build_info')).length, 1);
  });
});
