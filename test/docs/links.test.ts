// The partner guides' links, twice: in the Markdown (every relative link names a file in
// docs/partners/ and every anchor a heading of it, as GitHub shows them), and served (every /docs
// page answers 200 and every link and asset of it answers 200, anchors included). Also the /docs
// answers around them: the 404 page, the headers, and /v1 staying JSON.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, normalize, relative } from 'node:path';
import MarkdownIt from 'markdown-it';
import { slugger } from '../../src/docs/markdown.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { GUIDES, guideFiles, readGuide } from './docs-helpers.ts';

const md = new MarkdownIt({ html: false });

function headingIds(markdown: string): Set<string> {
  const tokens = md.parse(markdown, {});
  const slug = slugger();
  const ids = new Set<string>();
  tokens.forEach((token, i) => {
    if (token.type !== 'heading_open') return;
    const text = (tokens[i + 1]?.children ?? [])
      .filter((c) => c.type === 'text' || c.type === 'code_inline')
      .map((c) => c.content)
      .join('');
    ids.add(slug(text));
  });
  return ids;
}

function links(markdown: string): string[] {
  const out: string[] = [];
  const walk = (tokens: ReturnType<typeof md.parse>) => {
    for (const token of tokens) {
      if (token.type === 'link_open') out.push(String(token.attrGet('href')));
      if (token.children) walk(token.children);
    }
  };
  walk(md.parse(markdown, {}));
  return out;
}

describe('the guides in docs/partners/', () => {
  test('every relative link resolves to a file there, and every anchor to a heading', () => {
    const files = guideFiles();
    assert.ok(files.includes('README.md') && files.includes('quick-start.md'), files.join(', '));
    let checked = 0;
    for (const file of files) {
      for (const href of links(readGuide(file))) {
        if (/^[a-z]+:/i.test(href) || href.startsWith('/')) continue; // external, or served only
        const [path, anchor] = href.split('#') as [string, string | undefined];
        const target = path === '' ? file : normalize(path);
        const where = `${file}: ${href}`;
        assert.ok(!relative(GUIDES, join(GUIDES, target)).startsWith('..'), `${where} leaves docs/partners`);
        assert.ok(existsSync(join(GUIDES, target)), `${where}: no such file`);
        if (anchor !== undefined) {
          assert.ok(target.endsWith('.md'), `${where}: an anchor into a file that is not a guide`);
          assert.ok(headingIds(readGuide(target)).has(anchor), `${where}: no such heading`);
        }
        checked++;
      }
    }
    assert.ok(checked > 20, `relative links checked: ${checked}`);
  });
});

describe('the guides served at /docs', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h?.close();
  });

  async function get(url: string) {
    return h.service.api.inject({ method: 'GET', url });
  }

  test('every guide page answers 200, and every link, anchor and asset on it too', async () => {
    const pages = guideFiles().map((f) => (f === 'README.md' ? '/docs' : `/docs/${f.slice(0, -3)}`));
    pages.push('/docs/reference');
    const bodies = new Map<string, string>();
    const load = async (path: string) => {
      if (!bodies.has(path)) {
        const res = await get(path);
        assert.equal(res.statusCode, 200, `${path} answers ${res.statusCode}`);
        bodies.set(path, res.body);
      }
      return bodies.get(path)!;
    };
    let checked = 0;
    for (const page of pages) {
      const body = await load(page);
      for (const [, url] of body.matchAll(/(?:href|src)="([^"]+)"/g)) {
        if (/^[a-z]+:/i.test(url!)) continue; // external: not followed
        const [path, anchor] = url!.replace(/&amp;/g, '&').split('#') as [string, string | undefined];
        const target = path === '' ? page : path;
        const res = await get(target);
        assert.equal(res.statusCode, 200, `${page} links to ${url}, which answers ${res.statusCode}`);
        if (anchor !== undefined) {
          assert.ok(res.body.includes(`id="${anchor}"`), `${page} links to ${url}: no such anchor`);
        }
        checked++;
      }
    }
    assert.ok(checked > 100, `served links checked: ${checked}`);
  });

  test('a guide page: the nav of every guide, its headings linked, a strict CSP and no script', async () => {
    const res = await get('/docs/webhooks');
    assert.match(String(res.headers['content-type']), /^text\/html/);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /script-src/);
    assert.doesNotMatch(res.body, /<script/);
    assert.match(res.body, /<h2 id="local-development"><a href="#local-development" class="anchor">/);
    assert.match(res.body, /<a href="\/docs\/webhooks"\s+aria-current="page"/);
    for (const href of ['/docs', '/docs/quick-start', '/docs/errors', '/docs/reference']) {
      assert.ok(res.body.includes(`href="${href}"`), `nav links to ${href}`);
    }
    // Links between the Markdown files became links between the pages.
    assert.ok(res.body.includes('href="/docs/quick-start#5-receive-webhooks-locally"'));
    assert.ok(!/href="[^"]*\.md/.test(res.body), 'no link to a .md file is left');
    const css = /<link rel="stylesheet" href="([^"]+)"/.exec(res.body)![1]!;
    const sheet = await get(css);
    assert.equal(sheet.headers['cache-control'], 'public, max-age=31536000, immutable');
  });

  test('the reference page loads Redoc from this host, versioned, with its CSP', async () => {
    const res = await get('/docs/reference');
    assert.match(res.body, /<redoc spec-url="\/v1\/openapi.json"><\/redoc>/);
    const src = /<script src="([^"]+)"><\/script>/.exec(res.body)![1]!;
    assert.match(src, /^\/docs\/assets\/redoc-\d+\.\d+\.\d+\.[\w-]{12}\.js$/);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /connect-src 'self'/);
    const bundle = await h.service.api.inject({
      method: 'GET',
      url: src,
      headers: { 'accept-encoding': 'gzip' },
    });
    assert.equal(bundle.statusCode, 200);
    assert.equal(bundle.headers['content-encoding'], 'gzip');
    assert.equal(bundle.headers['cache-control'], 'public, max-age=31536000, immutable');
  });

  test('an unknown /docs page is an HTML 404 with the nav; an unknown /v1 route stays JSON', async () => {
    for (const url of ['/docs/nope', '/docs/assets/redoc-0.0.0.x.js', '/docs/quick-start.md']) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, url);
      assert.match(String(res.headers['content-type']), /^text\/html/, url);
      assert.match(res.body, /<h1>Page not found<\/h1>/);
      assert.ok(res.body.includes('href="/docs/quick-start"'));
    }
    const api = await get('/v1/nope');
    assert.equal(api.statusCode, 404);
    assert.equal(api.json().error_code, 'not_found');
  });

  test('the example receiver is served as text', async () => {
    const res = await get('/docs/examples/receiver.mjs');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.match(res.body, /from 'standardwebhooks'/);
  });
});
