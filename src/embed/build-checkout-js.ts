// Builds checkout.js (web/checkout-js; docs/architecture.md#browser-code) with esbuild: one minified
// IIFE with two placeholders for the SITE and API origins, which the SITE host fills in when it
// serves the file (checkout-js.routes.ts). `npm run build:checkout-js` writes it to
// dist/checkout-js/checkout.js; the SITE host builds it in memory at start when that file is
// missing or older than the sources, so tests and `npm run dev` need no build step.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions, BuildResult, SameShape } from 'esbuild';

/** The version in the file's first line; each change gets an entry in docs/checkout-js-changelog.md. */
export const CHECKOUT_JS_VERSION = '1.4.0';
export const SITE_ORIGIN_TOKEN = '%SERVICE_SITE_ORIGIN%';
export const API_ORIGIN_TOKEN = '%SERVICE_API_ORIGIN%';
/**
 * Property names read only inside checkout.js: the modal's words (src/site/messages/embed.en.ts,
 * both languages bundled), the open checkout's record (Checkout in checkout.ts) and the modal's
 * methods (Modal in modal.ts). None may be a name of the DOM, of an option or of a message.
 */
const INNER_KEYS =
  /^(loadingCheckout|closeCheckout|checkoutLabel|couldNotOpen|tryAgainLabel|options|modal|timer|onMessage|paid|prompting|typedIn|load|ready|fail|isFrame|ask|hide|show)$/;

/** The repository root: the nearest folder above this module with a package.json (src/ or dist/src/). */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('checkout.js: no package.json above ' + import.meta.url);
    dir = parent;
  }
  return dir;
}

export function checkoutJsPaths(root = projectRoot()) {
  return {
    sourceDir: join(root, 'web', 'checkout-js'),
    entry: join(root, 'web', 'checkout-js', 'checkout.ts'),
    built: join(root, 'dist', 'checkout-js', 'checkout.js'),
    /** the modal's words, which the script bundles from the page's catalog */
    words: ['en', 'sw'].map((l) => join(root, 'src', 'site', 'messages', `embed.${l}.ts`)),
  };
}

/**
 * Runs esbuild, a build-time tool (devDependency) loaded only when a build is needed. Builds run
 * synchronously, so that the modules making assets at load need no top-level await, which would
 * keep them from being require()d (docs/decisions/tests-in-worker-processes.md).
 */
export function buildSync<Options extends BuildOptions>(
  options: SameShape<BuildOptions, Options>,
): BuildResult<Options> {
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  return esbuild.buildSync(options);
}

/** How both browser scripts (checkout.js and the hosted page's) are built: one minified IIFE. */
export const BROWSER_SCRIPT_BUILD = {
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2017',
  charset: 'utf8',
  legalComments: 'none',
} as const;

/** Bundles and minifies the script; the result still holds the two origin placeholders. */
export function bundleCheckoutJs(root = projectRoot()): string {
  const result = buildSync({
    entryPoints: [checkoutJsPaths(root).entry],
    ...BROWSER_SCRIPT_BUILD,
    write: false,
    logLevel: 'silent',
    banner: { js: `/* ServiceCheckout checkout.js ${CHECKOUT_JS_VERSION} */` },
    // Keys that never leave the script, shortened: the byte budget is tight.
    mangleProps: INNER_KEYS,
    define: {
      __SITE_ORIGIN__: JSON.stringify(SITE_ORIGIN_TOKEN),
      __API_ORIGIN__: JSON.stringify(API_ORIGIN_TOKEN),
    },
  });
  const text = result.outputFiles[0]!.text;
  for (const token of [SITE_ORIGIN_TOKEN, API_ORIGIN_TOKEN]) {
    if (!text.includes(token)) throw new Error(`checkout.js build lost the placeholder ${token}`);
  }
  return text;
}

const SAFE_ORIGIN = /^https?:\/\/[A-Za-z0-9.\-[\]:]+$/;

/**
 * The served script: the bundle with the SITE and API origins written in. Origins are checked to
 * hold only characters that are inert inside any JavaScript string or template literal.
 */
export function fillCheckoutJsOrigins(bundle: string, origins: { site: string; api: string }): string {
  for (const origin of [origins.site, origins.api]) {
    if (!SAFE_ORIGIN.test(origin))
      throw new Error(`checkout.js: unexpected origin ${JSON.stringify(origin)}`);
  }
  return bundle.replaceAll(SITE_ORIGIN_TOKEN, origins.site).replaceAll(API_ORIGIN_TOKEN, origins.api);
}

function newestSourceTime(paths: ReturnType<typeof checkoutJsPaths>): number {
  const files = readdirSync(paths.sourceDir).map((name) => join(paths.sourceDir, name));
  files.push(fileURLToPath(import.meta.url), ...paths.words);
  return Math.max(...files.map((file) => statSync(file).mtimeMs));
}

export type BundleOrigin = 'built' | 'memory';

/**
 * The bundle for the SITE host: dist/checkout-js/checkout.js when present and not older than the
 * sources (a deployment may ship without web/), else built in memory.
 */
export function loadCheckoutJsBundle(root = projectRoot()): { text: string; from: BundleOrigin } {
  const paths = checkoutJsPaths(root);
  const hasSources = existsSync(paths.entry);
  if (existsSync(paths.built)) {
    const fresh = !hasSources || statSync(paths.built).mtimeMs >= newestSourceTime(paths);
    if (fresh) return { text: readFileSync(paths.built, 'utf8'), from: 'built' };
  }
  if (!hasSources) throw new Error(`checkout.js: neither ${paths.built} nor its sources in web/checkout-js`);
  return { text: bundleCheckoutJs(root), from: 'memory' };
}

/**
 * Writes a built file whole: to a file of its own, then renamed over the old one, so that a
 * service starting meanwhile (a second build beside a running suite) never reads half of it.
 */
export function writeBuilt(path: string, data: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}`;
  writeFileSync(partial, data);
  renameSync(partial, path);
}

/** `npm run build:checkout-js` */
export function writeCheckoutJs(root = projectRoot()): { path: string; bytes: number } {
  const text = bundleCheckoutJs(root);
  const { built } = checkoutJsPaths(root);
  writeBuilt(built, text);
  return { path: built, bytes: Buffer.byteLength(text) };
}

if (import.meta.main) {
  const { path, bytes } = writeCheckoutJs();
  process.stdout.write(`checkout.js ${CHECKOUT_JS_VERSION}: ${path} (${bytes} bytes before origins)\n`);
}
