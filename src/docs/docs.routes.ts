// GET /docs and everything under it on the API host: the partner guides as HTML pages, their
// example files as text, the stylesheet and Redoc's bundle under content hashes, the API
// reference, and an HTML 404 for any other /docs page. Routes outside /docs keep the host's
// JSON answers.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { html, makeAsset, raw, sendAsset, type Asset, type Host } from '../platform/index.ts';
import { docsPage, type NavEntry } from './docs-shell.ts';
import { DOCS_CSS } from './docs-style.ts';
import { loadExamples, loadGuides } from './guides.ts';
import { loadReference, REFERENCE_CSP } from './reference.ts';
import { serviceValuesOf } from './service-values.ts';

/** Guide pages run no script and load only their stylesheet. */
const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

type Answer = (request: FastifyRequest, reply: FastifyReply) => unknown;

function pageHeaders(reply: FastifyReply, csp: string): FastifyReply {
  return reply
    .header('Content-Security-Policy', csp)
    .header('X-Content-Type-Options', 'nosniff')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', 'no-cache')
    .type('text/html; charset=utf-8');
}

export async function registerDocsRoutes(app: Host, ctx: AppContext) {
  const styles = makeAsset({
    name: 'docs',
    extension: 'css',
    contentType: 'text/css; charset=utf-8',
    text: DOCS_CSS.trim(),
  });
  // Commands on the pages name this service's URLs and data directory (service-values.ts).
  const guides = loadGuides(undefined, serviceValuesOf(ctx.config));
  const reference = loadReference();
  const nav: NavEntry[] = [
    ...guides.map((g) => ({ href: g.href, label: g.title })),
    { href: '/docs/reference', label: 'API reference' },
  ];
  const page = (title: string, current: string | null, main: string) =>
    docsPage({ title, stylesheet: `/docs${styles.path}`, nav, current, main: raw(main) });

  const answers = new Map<string, Answer>();
  for (const guide of guides) {
    const body = page(guide.title, guide.href, guide.html);
    answers.set(guide.href, (_request, reply) => pageHeaders(reply, PAGE_CSP).send(body));
  }
  for (const example of loadExamples()) {
    answers.set(example.href, (_request, reply) =>
      reply
        .type('text/plain; charset=utf-8')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'no-cache')
        .send(example.text),
    );
  }
  const asset =
    (get: () => Asset): Answer =>
    (request, reply) =>
      sendAsset(reply, get(), request.headers['accept-encoding']);
  answers.set(
    `/docs${styles.path}`,
    asset(() => styles),
  );
  answers.set('/docs/reference', (_request, reply) =>
    pageHeaders(reply, REFERENCE_CSP).send(reference.page()),
  );

  const notFound = page(
    'Page not found',
    null,
    html`<h1>Page not found</h1>
      <p>
        There is no guide at this address. Choose one from the list, or start with the
        <a href="/docs/quick-start">quick start</a>.
      </p>`.value,
  );
  const answer = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!.replace(/\/$/, '') || '/docs';
    const found = answers.get(path);
    if (found) return found(request, reply);
    // Redoc's bundle is looked at only when asked for (see reference.ts).
    if (path.startsWith('/docs/assets/redoc-') && path === `/docs${reference.bundle().path}`) {
      return asset(reference.bundle)(request, reply);
    }
    return pageHeaders(reply, PAGE_CSP).code(404).send(notFound);
  };
  // Parameters rather than a wildcard: the route table stays readable to the tests that list it.
  for (const path of ['/docs', '/docs/:page', '/docs/assets/:file', '/docs/examples/:file']) {
    app.get(path, { schema: { hide: true } }, answer);
  }
}
