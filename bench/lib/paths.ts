// Where things are: the repository root, the compiled service, the results folder.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST_SRC = join(ROOT, 'dist', 'src');
/**
 * The checkout whose service is measured: this one, or BENCH_SERVICE_ROOT (another worktree, to
 * compare two versions with the same bench; seeding and the simulator stay this checkout's).
 */
export const SERVICE_ROOT = process.env.BENCH_SERVICE_ROOT ? resolve(process.env.BENCH_SERVICE_ROOT) : ROOT;
export const SERVICE_ENTRY = join(SERVICE_ROOT, 'dist', 'src', 'main.js');
export const RESULTS_DIR = join(ROOT, 'bench', 'results');
export const BARE_SERVER = join(ROOT, 'bench', 'bare-server.ts');

/** Imports a compiled module from dist/src; the type comes from the matching src/ module. */
export async function importDist<T>(relativeJs: string): Promise<T> {
  return (await import(pathToFileURL(join(DIST_SRC, relativeJs)).href)) as T;
}
