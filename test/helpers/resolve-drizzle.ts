// Loaded before every test file (`--import` in package.json's test script). For each file it loads,
// Node re-reads and parses the whole `exports` of that file's package.json; drizzle-orm's is 179 kB,
// so its hundred-odd modules cost each test process about 2 CPU-seconds and 130 MB of garbage
// (docs/decisions/test-module-resolution.md). Its modules import one another by relative `.js`
// paths and are all ES modules ("type": "module"), so those are resolved here without that read,
// and each bare `drizzle-orm…` specifier of the project's files once per process, not once per
// importing file.
import { registerHooks, type ResolveFnOutput } from 'node:module';

const PACKAGE = '/node_modules/drizzle-orm/';
const bare = new Map<string, ResolveFnOutput>();

function insidePackage(url: string | undefined): url is string {
  if (url === undefined) return false;
  const at = url.indexOf(PACKAGE);
  return at >= 0 && !url.includes('/node_modules/', at + PACKAGE.length);
}

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (
      insidePackage(context.parentURL) &&
      (specifier.startsWith('./') || specifier.startsWith('../')) &&
      specifier.endsWith('.js')
    ) {
      return { url: new URL(specifier, context.parentURL).href, format: 'module', shortCircuit: true };
    }
    // Only from the project's own files, which all find the one drizzle-orm in node_modules.
    if (
      (specifier === 'drizzle-orm' || specifier.startsWith('drizzle-orm/')) &&
      !context.parentURL?.includes('/node_modules/')
    ) {
      const key = `${specifier} ${context.conditions.join()}`;
      let result = bare.get(key);
      if (result === undefined) {
        result = nextResolve(specifier, context);
        bare.set(key, result);
      }
      return { ...result, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
