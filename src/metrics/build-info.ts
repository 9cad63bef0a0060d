// What is running: the version (package.json) and the commit it was built from, as the build_info
// gauge. The commit is written into dist/ by `npm run build` (write-build-info.ts); nothing asks
// git at runtime, so a service run from src/ (tests, `npm run dev`) says "unknown".
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Gauge, type Registry } from 'prom-client';

export interface BuildInfo {
  version: string;
  commit: string;
}

export const UNKNOWN = 'unknown';

/** The file `npm run build` writes: dist/build-info.json, beside dist/src/. */
export const BUILD_INFO_FILE = 'build-info.json';

/** A commit as the build names it: a hexadecimal object name, abbreviated or whole. */
export const COMMIT_FORM = /^[0-9a-f]{7,64}$/;

/** The nearest package.json's version at or above `dir` (the project's, from src/ or dist/src/). */
function packageVersion(dir: string): string {
  for (let at = dir; ; at = dirname(at)) {
    const path = join(at, 'package.json');
    if (existsSync(path)) {
      const { version } = JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown };
      return typeof version === 'string' && version !== '' ? version : UNKNOWN;
    }
    if (dirname(at) === at) return UNKNOWN;
  }
}

/** The commit written beside the built tree, two folders above this module (dist/src/metrics/). */
function builtCommit(dir: string): string {
  const path = join(dir, '..', '..', BUILD_INFO_FILE);
  if (!existsSync(path)) return UNKNOWN;
  try {
    const { commit } = JSON.parse(readFileSync(path, 'utf8')) as { commit?: unknown };
    return typeof commit === 'string' && COMMIT_FORM.test(commit) ? commit : UNKNOWN;
  } catch {
    return UNKNOWN;
  }
}

/** This build's version and commit; `moduleUrl` stands for this module's place (tests). */
export function readBuildInfo(moduleUrl: string = import.meta.url): BuildInfo {
  const dir = dirname(fileURLToPath(moduleUrl));
  return { version: packageVersion(dir), commit: builtCommit(dir) };
}

let current: BuildInfo | undefined;

/**
 * build_info{version,commit} = 1 on the registry. The same in every worker, so the cluster's sum
 * takes the max: two builds side by side (a worker started after a deploy) show as two series.
 */
export function registerBuildInfo(registry: Registry): void {
  current ??= readBuildInfo();
  new Gauge({
    name: 'build_info',
    help: 'Always 1: the version (package.json) and commit of the running build ("unknown" when not built from git)',
    labelNames: ['version', 'commit'],
    aggregator: 'max',
    registers: [registry],
  }).set({ version: current.version, commit: current.commit }, 1);
}
