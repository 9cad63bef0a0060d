// The service is measured as it ships: compiled by `npm run build` into dist/src (of this checkout,
// and of BENCH_SERVICE_ROOT's when another checkout's service is measured).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { DIST_SRC, ROOT, SERVICE_ENTRY, SERVICE_ROOT } from './paths.ts';

export function buildService(skip: boolean, log: (line: string) => void): void {
  const roots = SERVICE_ROOT === ROOT ? [ROOT] : [ROOT, SERVICE_ROOT];
  if (skip) {
    for (const entry of new Set([`${DIST_SRC}/main.js`, SERVICE_ENTRY])) {
      if (!existsSync(entry)) throw new Error(`BENCH_SKIP_BUILD is set but ${entry} is missing`);
    }
    log('build: skipped (BENCH_SKIP_BUILD), using the existing dist/');
    return;
  }
  for (const root of roots) {
    const started = Date.now();
    const result = spawnSync('npm', ['run', '--silent', 'build'], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: 300_000,
    });
    if (result.error) throw result.error;
    if (result.status !== 0)
      throw new Error(`npm run build in ${root} failed with exit code ${result.status}`);
    log(`build: npm run build in ${root} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}
