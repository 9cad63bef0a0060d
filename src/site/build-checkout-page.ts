// Builds the hosted checkout page's scripts (web/checkout-page) with esbuild, each one minified
// IIFE and its source map: the form's (main.ts) and the pages' after it (pages.ts: the wait screen,
// the confirmation), so that the form's first load carries none of the latter.
// `npm run build:checkout-page` writes them to dist/checkout-page/, with the lists of source files
// they were made from; the SITE host loads them at start when none of those files
// is newer, else builds in memory, so tests and `npm run dev` need no build step.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROWSER_SCRIPT_BUILD, buildSync, projectRoot, writeBuilt } from '../embed/index.ts';

export interface CheckoutPageBundle {
  /** the minified script, without a sourceMappingURL comment (the server adds it with the map's URL) */
  code: string;
  /** its source map, sources relative to dist/checkout-page/ */
  map: string;
  /** the files the bundle was made from, relative to the project root, `/`-separated */
  inputs: string[];
}

/** The scripts: the form's (checkout.js) and the other pages' (checkout-pages.js). */
export type PageScript = 'checkout' | 'checkout-pages';

const ENTRIES: Record<PageScript, string> = { checkout: 'main.ts', 'checkout-pages': 'pages.ts' };

export function checkoutPagePaths(root = projectRoot(), script: PageScript = 'checkout') {
  const outDir = join(root, 'dist', 'checkout-page');
  return {
    entry: join(root, 'web', 'checkout-page', ENTRIES[script]),
    code: join(outDir, `${script}.js`),
    map: join(outDir, `${script}.js.map`),
    inputs: join(outDir, `${script}.inputs.json`),
  };
}

/** Bundles and minifies the script with its source map. */
export function bundleCheckoutPage(
  root = projectRoot(),
  script: PageScript = 'checkout',
): CheckoutPageBundle {
  const paths = checkoutPagePaths(root, script);
  const result = buildSync({
    entryPoints: [paths.entry],
    absWorkingDir: root,
    outfile: paths.code,
    ...BROWSER_SCRIPT_BUILD,
    sourcemap: 'external',
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const output = (suffix: string) => result.outputFiles.find((file) => file.path.endsWith(suffix))!.text;
  return {
    code: output('.js'),
    map: output('.js.map'),
    inputs: Object.keys(result.metafile.inputs).map((input) => input.split(sep).join('/')),
  };
}

function newestInputTime(root: string, inputs: string[]): number {
  const files = inputs.map((input) => join(root, input)).filter((file) => existsSync(file));
  files.push(fileURLToPath(import.meta.url));
  return Math.max(...files.map((file) => statSync(file).mtimeMs));
}

export type BundleOrigin = 'built' | 'memory';

/**
 * The bundle for the SITE host: the files in dist/checkout-page/ when present and no input is
 * newer (a deployment may ship without web/), else built in memory.
 */
export function loadCheckoutPageBundle(
  root = projectRoot(),
  script: PageScript = 'checkout',
): CheckoutPageBundle & { from: BundleOrigin } {
  const paths = checkoutPagePaths(root, script);
  const hasSources = existsSync(paths.entry);
  if ([paths.code, paths.map, paths.inputs].every((file) => existsSync(file))) {
    const inputs = JSON.parse(readFileSync(paths.inputs, 'utf8')) as string[];
    const builtAt = Math.min(...[paths.code, paths.map].map((file) => statSync(file).mtimeMs));
    if (!hasSources || builtAt >= newestInputTime(root, inputs)) {
      const [code, map] = [paths.code, paths.map].map((file) => readFileSync(file, 'utf8')) as [
        string,
        string,
      ];
      return { code, map, inputs, from: 'built' };
    }
  }
  if (!hasSources) {
    throw new Error(`checkout page script: neither ${paths.code} nor its sources in web/checkout-page`);
  }
  return { ...bundleCheckoutPage(root, script), from: 'memory' };
}

/** `npm run build:checkout-page` */
export function writeCheckoutPage(
  root = projectRoot(),
  script: PageScript = 'checkout',
): { path: string; bytes: number } {
  const bundle = bundleCheckoutPage(root, script);
  const paths = checkoutPagePaths(root, script);
  writeBuilt(paths.inputs, JSON.stringify(bundle.inputs, null, 2) + '\n');
  writeBuilt(paths.map, bundle.map);
  writeBuilt(paths.code, bundle.code);
  return { path: relative(root, paths.code), bytes: Buffer.byteLength(bundle.code) };
}

if (import.meta.main) {
  for (const script of Object.keys(ENTRIES) as PageScript[]) {
    const { path, bytes } = writeCheckoutPage(projectRoot(), script);
    process.stdout.write(`checkout page script: ${path} (${bytes} bytes) and its source map\n`);
  }
}
