// `prestart`: runs `npm run build` unless dist/ was built after the last change to everything it is
// built from, so that a second `npm start` starts in seconds. A successful build run here leaves
// dist/.build-stamp dated when the build began; the build is skipped when the stamp and
// dist/src/main.js exist and no input (a file or folder under src/, web/ or patches/, a tsconfig,
// package.json, package-lock.json) changed since. docs/decisions/start-skips-a-fresh-build.md.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const STAMP = join('dist', '.build-stamp');
const INPUT_FOLDERS = ['src', 'web', 'patches'];
const INPUT_FILES = /^(tsconfig.*\.json|package\.json|package-lock\.json)$/;

/** The newest change among the build's inputs under `root`: its time (ms) and its path. */
function newestInput(root: string): { mtimeMs: number; path: string } {
  let newest = { mtimeMs: 0, path: '' };
  const consider = (path: string) => {
    const { mtimeMs } = statSync(path);
    if (mtimeMs > newest.mtimeMs) newest = { mtimeMs, path };
  };
  for (const name of readdirSync(root)) if (INPUT_FILES.test(name)) consider(join(root, name));
  for (const folder of INPUT_FOLDERS) {
    const top = join(root, folder);
    if (!existsSync(top)) continue;
    // Folders count too: a deleted or renamed file changes only its folder's time.
    consider(top);
    for (const entry of readdirSync(top, { recursive: true, withFileTypes: true })) {
      consider(join(entry.parentPath, entry.name));
    }
  }
  return newest;
}

interface BuildDecision {
  build: boolean;
  reason: string;
}

export function decideBuild(root: string): BuildDecision {
  const stamp = join(root, STAMP);
  if (!existsSync(stamp)) return { build: true, reason: `no ${STAMP}: dist/ was not built by npm start` };
  if (!existsSync(join(root, 'dist', 'src', 'main.js')))
    return { build: true, reason: 'no dist/src/main.js' };
  const built = statSync(stamp).mtimeMs;
  const newest = newestInput(root);
  // Equal times rebuild: a change made while the last build began may not be in it.
  if (newest.mtimeMs >= built) {
    return { build: true, reason: `${newest.path.slice(root.length + 1)} changed after the last build` };
  }
  return { build: false, reason: 'dist/ is newer than src/, web/, patches/, tsconfig*, package*.json' };
}

/** Builds when needed; the exit code of the build, or 0 when skipped. */
function buildIfStale(root: string, say: (line: string) => void = (l) => process.stdout.write(`${l}\n`)) {
  const decision = decideBuild(root);
  if (!decision.build) {
    say(`build skipped: ${decision.reason} (npm run build forces one)`);
    // The commit still changes with docs-only commits: build_info reports the one started.
    const info = spawnSync('npm', ['run', '--silent', 'build:info'], { cwd: root, stdio: 'inherit' });
    return info.status ?? 1;
  }
  say(`building: ${decision.reason}`);
  const began = new Date();
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) return result.status ?? 1;
  const stamp = join(root, STAMP);
  writeFileSync(stamp, "npm start built dist/ from the sources as they were at this file's time\n");
  utimesSync(stamp, began, began);
  return 0;
}

if (import.meta.main) process.exitCode = buildIfStale(process.cwd());
