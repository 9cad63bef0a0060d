// /docs/reference: Redoc's standalone bundle (from the redoc package, never a CDN) rendering
// /v1/openapi.json. The bundle is read at start; compressing its megabyte waits for the first
// request of it, so that hosts which never serve it (tests) do not pay for it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { html, makeAsset, type Asset } from '../platform/index.ts';

const BUNDLE = fileURLToPath(import.meta.resolve('redoc/bundles/redoc.standalone.js'));
/**
 * The bundle's one off-host address: the Redocly logo in the menu's footer, fetched from their
 * CDN. Blanked, the image fails at once and Redoc leaves it out (the link text stays).
 */
const CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const PACKAGE = fileURLToPath(import.meta.resolve('redoc/package.json'));

/**
 * What Redoc needs: its own script; styles it injects at run time (styled-components writes
 * <style> elements and style attributes, hence 'unsafe-inline' for styles only); its search
 * index in a worker made from a blob; data: images (its icons); the API document from this host.
 */
export const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface Reference {
  /** the bundle, compressed on first use; its path carries Redoc's version and a content hash */
  bundle(): Asset;
  page(): string;
}

export function loadReference(): Reference {
  const version = (JSON.parse(readFileSync(PACKAGE, 'utf8')) as { version: string }).version;
  const text = readFileSync(BUNDLE, 'utf8').replaceAll(CDN_LOGO, '');
  let asset: Asset | undefined;
  const bundle = () =>
    (asset ??= makeAsset({
      name: `redoc-${version}`,
      extension: 'js',
      contentType: 'text/javascript; charset=utf-8',
      text,
      brotliQuality: 5,
    }));
  return {
    bundle,
    page: () =>
      `<!doctype html>${
        html`<html lang="en">
          <head>
            <meta charset="utf-8" />
            <meta name="viewport" content="width=device-width, initial-scale=1" />
            <title>API reference · Partner Ticketing API docs</title>
          </head>
          <body>
            <noscript>
              <p>
                The API reference needs JavaScript. Without it, read the OpenAPI document at
                <a href="/v1/openapi.json">/v1/openapi.json</a> or the <a href="/docs">guides</a>.
              </p>
            </noscript>
            <redoc spec-url="/v1/openapi.json"></redoc>
            <script src="/docs${bundle().path}"></script>
          </body>
        </html>`.value
      }`,
  };
}
