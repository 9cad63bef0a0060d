// The service is measured as it ships: compiled by `npm run build` into dist/src.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ROOT, SERVICE_ENTRY } from './paths.ts';

export function buildService(skip: boolean, log: (line: string) => void): void {
  if (skip) {
    if (!existsSync(SERVICE_ENTRY))
      throw new Error(`BENCH_SKIP_BUILD is set but ${SERVICE_ENTRY} is missing`);
    log('build: skipped (BENCH_SKIP_BUILD), using the existing dist/');
    return;
  }
  const started = Date.now();
  const result = spawnSync('npm', ['run', '--silent', 'build'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 300_000,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`npm run build failed with exit code ${result.status}`);
  log(`build: npm run build done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
