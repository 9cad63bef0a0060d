// `npm start`'s prestart (scripts/build-if-stale.ts) in a folder shaped like the repository, whose
// package.json `build` only counts its runs and writes dist/src/main.js: a first start builds, an
// untouched one skips, and a touched source, folder, tsconfig or package file builds again. File
// times are set explicitly (a second apart), so that no outcome depends on the clock's resolution.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decideBuild, STAMP } from '../../scripts/build-if-stale.ts';

const SCRIPT = fileURLToPath(new URL('../../scripts/build-if-stale.ts', import.meta.url));

let root: string;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'build-if-stale-'));
  const fakeBuild = [
    "const fs = require('node:fs');",
    "fs.appendFileSync('builds.log', 'built\\n');",
    "fs.mkdirSync('dist/src', { recursive: true });",
    "fs.writeFileSync('dist/src/main.js', '');",
  ].join(' ');
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({
      name: 'fixture',
      private: true,
      scripts: {
        build: `node -e "${fakeBuild.replaceAll('"', '\\"')}"`,
        'build:info': `node -e "require('node:fs').appendFileSync('info.log', 'info\\n')"`,
      },
    }),
  );
  for (const file of [
    'src/main.ts',
    'src/site/page.ts',
    'web/app/main.ts',
    'tsconfig.json',
    'tsconfig.build.json',
  ]) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), '');
  }
  // Everything an hour old: the stamp a build writes is dated after it.
  ageAll(3600);
});
after(() => rmSync(root, { recursive: true, force: true }));

function setTime(path: string, secondsAgo: number): void {
  const at = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(join(root, path), at, at);
}

/** Every input (files and folders under src/ and web/, the tsconfigs, package.json) made this old. */
function ageAll(secondsAgo: number): void {
  const inputs = ['src', 'web', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
  for (const folder of ['src', 'web']) {
    for (const entry of readdirSync(join(root, folder), { recursive: true, withFileTypes: true })) {
      inputs.push(relative(root, join(entry.parentPath, entry.name)));
    }
  }
  for (const path of inputs) setTime(path, secondsAgo);
}

/** After a build: its stamp an hour old and every input older still, as after a start long ago. */
function settle(): void {
  ageAll(7200);
  setTime(STAMP, 3600);
}

function start(): Promise<{ code: number; output: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [SCRIPT],
      {
        cwd: root,
        env: { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: root },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? -1) : 0, output: stdout + stderr }),
    ),
  );
}

const builds = () => readFileSync(join(root, 'builds.log'), 'utf8').split('\n').filter(Boolean).length;

describe('npm start builds only when a source changed', () => {
  test('a first start builds and leaves a stamp dated when the build began', async () => {
    const before = Date.now();
    const run = await start();
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /building: no dist\/\.build-stamp/);
    assert.equal(builds(), 1);
    const stamp = statSync(join(root, STAMP)).mtimeMs;
    assert.ok(stamp >= before - 1000 && stamp <= statSync(join(root, 'dist/src/main.js')).mtimeMs + 1000);
  });

  test('an untouched tree skips the build and still records the commit', async () => {
    settle();
    const run = await start();
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /build skipped: dist\/ is newer than/);
    assert.equal(builds(), 1);
    assert.equal(readFileSync(join(root, 'info.log'), 'utf8'), 'info\n');
  });

  for (const touched of [
    'src/site/page.ts',
    'web/app/main.ts',
    'tsconfig.build.json',
    'package.json',
    'src',
  ]) {
    test(`touching ${touched} builds again`, async () => {
      settle();
      assert.equal(decideBuild(root).build, false);
      const count = builds();
      setTime(touched, 0);
      const run = await start();
      assert.equal(run.code, 0, run.output);
      assert.ok(run.output.includes(`building: ${touched} changed after the last build`), run.output);
      assert.equal(builds(), count + 1);
    });
  }

  test('a new file, a deleted file, or a deleted dist/src/main.js builds again', () => {
    settle();
    writeFileSync(join(root, 'src', 'new.ts'), '');
    // The file and its folder changed together: either may be named.
    assert.match(decideBuild(root).reason, /^src(\/new\.ts)? changed after the last build$/);
    settle();
    assert.equal(decideBuild(root).build, false);
    rmSync(join(root, 'src', 'new.ts'));
    assert.deepEqual(decideBuild(root), { build: true, reason: 'src changed after the last build' });
    settle();
    rmSync(join(root, 'dist', 'src', 'main.js'));
    assert.deepEqual(decideBuild(root), { build: true, reason: 'no dist/src/main.js' });
  });

  test('a failed build leaves no stamp and fails the start', async () => {
    rmSync(join(root, STAMP));
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    pkg.scripts.build = 'node -e "process.exit(3)"';
    writeFileSync(join(root, 'package.json'), JSON.stringify(pkg));
    const run = await start();
    assert.notEqual(run.code, 0, run.output);
    assert.equal(decideBuild(root).build, true);
    assert.throws(() => statSync(join(root, STAMP)), /ENOENT/);
  });
});
