// Builds the organizer app's script (web/app/main.ts, one minified IIFE with its source map) and
// stylesheet (web/app/app.css, minified) with esbuild, as the checkout page's script is built
// (site/build-checkout-page.ts). `npm run build:app-assets` writes them to dist/app-assets/ with
// the list of source files they were made from; the APP host loads them at start when none of
// those files is newer, else builds in memory, so tests and `npm run dev` need no build step.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROWSER_SCRIPT_BUILD, buildSync, projectRoot, writeBuilt } from '../embed/index.ts';

export interface AppAssetsBundle {
  /** the minified script, without a sourceMappingURL comment (the server adds it with the map's URL) */
  script: string;
  /** its source map, sources relative to dist/app-assets/ */
  map: string;
  /** the minified stylesheet */
  css: string;
  /** the files both were made from, relative to the project root, `/`-separated */
  inputs: string[];
}

export function appAssetsPaths(root = projectRoot()) {
  const outDir = join(root, 'dist', 'app-assets');
  return {
    scriptEntry: join(root, 'web', 'app', 'main.ts'),
    cssEntry: join(root, 'web', 'app', 'app.css'),
    script: join(outDir, 'app.js'),
    map: join(outDir, 'app.js.map'),
    css: join(outDir, 'app.css'),
    inputs: join(outDir, 'app.inputs.json'),
  };
}

const inputsOf = (metafile: { inputs: Record<string, unknown> }) =>
  Object.keys(metafile.inputs).map((input) => input.split(sep).join('/'));

/** Bundles and minifies the script with its source map, and the stylesheet. */
export function bundleAppAssets(root = projectRoot()): AppAssetsBundle {
  const paths = appAssetsPaths(root);
  const common = { absWorkingDir: root, metafile: true, write: false, logLevel: 'silent' } as const;
  const script = buildSync({
    ...common,
    ...BROWSER_SCRIPT_BUILD,
    entryPoints: [paths.scriptEntry],
    outfile: paths.script,
    sourcemap: 'external',
  });
  const css = buildSync({
    ...common,
    entryPoints: [paths.cssEntry],
    outfile: paths.css,
    bundle: true,
    minify: true,
    charset: 'utf8',
    legalComments: 'none',
  });
  const output = (suffix: string) =>
    [...script.outputFiles, ...css.outputFiles].find((file) => file.path.endsWith(suffix))!.text;
  return {
    script: output('.js'),
    map: output('.js.map'),
    css: output('.css'),
    inputs: [...inputsOf(script.metafile), ...inputsOf(css.metafile)],
  };
}

function newestInputTime(root: string, inputs: string[]): number {
  const files = inputs.map((input) => join(root, input)).filter((file) => existsSync(file));
  files.push(fileURLToPath(import.meta.url));
  return Math.max(...files.map((file) => statSync(file).mtimeMs));
}

/**
 * The assets for the APP host: the files in dist/app-assets/ when present and no input is newer
 * (a deployment may ship without web/), else built in memory.
 */
export function loadAppAssets(root = projectRoot()): AppAssetsBundle & { from: 'built' | 'memory' } {
  const paths = appAssetsPaths(root);
  const outputs = [paths.script, paths.map, paths.css];
  const hasSources = existsSync(paths.scriptEntry) && existsSync(paths.cssEntry);
  if ([...outputs, paths.inputs].every((file) => existsSync(file))) {
    const inputs = JSON.parse(readFileSync(paths.inputs, 'utf8')) as string[];
    const builtAt = Math.min(...outputs.map((file) => statSync(file).mtimeMs));
    if (!hasSources || builtAt >= newestInputTime(root, inputs)) {
      const [script, map, css] = outputs.map((file) => readFileSync(file, 'utf8')) as [
        string,
        string,
        string,
      ];
      return { script, map, css, inputs, from: 'built' };
    }
  }
  if (!hasSources) {
    throw new Error(`organizer app assets: neither ${paths.script} nor their sources in web/app`);
  }
  return { ...bundleAppAssets(root), from: 'memory' };
}

/** `npm run build:app-assets` */
export function writeAppAssets(root = projectRoot()): { paths: string[]; bytes: number } {
  const bundle = bundleAppAssets(root);
  const paths = appAssetsPaths(root);
  writeBuilt(paths.inputs, JSON.stringify(bundle.inputs, null, 2) + '\n');
  writeBuilt(paths.map, bundle.map);
  writeBuilt(paths.script, bundle.script);
  writeBuilt(paths.css, bundle.css);
  return {
    paths: [paths.script, paths.css].map((path) => relative(root, path)),
    bytes: Buffer.byteLength(bundle.script) + Buffer.byteLength(bundle.css),
  };
}

if (import.meta.main) {
  const { paths, bytes } = writeAppAssets();
  process.stdout.write(`organizer app assets: ${paths.join(', ')} (${bytes} bytes) and a source map\n`);
}
