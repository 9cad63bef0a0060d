// A step of `npm run build` (never run by the service): writes dist/build-info.json with the commit
// being built, which build_info reports (build-info.ts). GIT_COMMIT names it when the build has
// no .git (a CI job or an image build passes it); otherwise `git rev-parse HEAD`; else "unknown".
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_INFO_FILE, COMMIT_FORM, UNKNOWN } from './build-info.ts';

/** The commit to record: GIT_COMMIT, else HEAD of the work tree at `root`, else "unknown". */
export function buildCommit(root: string, env: NodeJS.ProcessEnv = process.env): string {
  const given = env.GIT_COMMIT?.trim().toLowerCase();
  if (given) return COMMIT_FORM.test(given) ? given : UNKNOWN;
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
    }).trim();
    return COMMIT_FORM.test(head) ? head : UNKNOWN;
  } catch {
    // no git on the build machine, or no repository: the build still succeeds
    return UNKNOWN;
  }
}

/** Writes `root`/dist/build-info.json; returns its path and the commit written. */
export function writeBuildInfo(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): { path: string; commit: string } {
  const commit = buildCommit(root, env);
  const path = join(root, 'dist', BUILD_INFO_FILE);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify({ commit })}\n`);
  return { path, commit };
}

if (import.meta.main) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const { path, commit } = writeBuildInfo(root);
  process.stdout.write(`build info: commit ${commit} in ${path}\n`);
}
