// The partner guides (docs/partners/*.md) and their example files, read and rendered once at
// start. README.md is the index at /docs; the others are /docs/<file name without .md>.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderGuide } from './markdown.ts';
import { fillServiceValues, type ServiceValues } from './service-values.ts';

export interface Guide {
  /** '' for the index, else the file name without .md */
  slug: string;
  href: string;
  title: string;
  html: string;
}

export interface ExampleFile {
  href: string;
  text: string;
}

/** The order of the nav; a guide not listed comes after these, by name. */
const ORDER = [
  'README',
  'quick-start',
  'authentication',
  'redirect-checkout',
  'embedded-checkout',
  'webhooks',
  'testing',
  'refunds',
  'errors',
  'idempotency',
  'pagination',
  'going-live',
];

/** The repository root: the nearest folder above this module with a package.json (src/ or dist/src/). */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`docs: no package.json above ${import.meta.url}`);
    dir = parent;
  }
  return dir;
}

function partnerDocsDir(): string {
  return join(projectRoot(), 'docs', 'partners');
}

function rank(name: string): number {
  const at = ORDER.indexOf(name);
  return at < 0 ? ORDER.length : at;
}

/** The guides rendered; with `values`, naming that service instead of the defaults (service-values.ts). */
export function loadGuides(dir = partnerDocsDir(), values?: ServiceValues): Guide[] {
  const names = readdirSync(dir)
    .filter((file) => file.endsWith('.md'))
    .map((file) => file.slice(0, -'.md'.length))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return names.map((name) => {
    const markdown = readFileSync(join(dir, `${name}.md`), 'utf8');
    const { title, html } = renderGuide(values ? fillServiceValues(markdown, values) : markdown);
    const slug = name === 'README' ? '' : name;
    return { slug, href: slug === '' ? '/docs' : `/docs/${slug}`, title: title || name, html };
  });
}

export function loadExamples(dir = partnerDocsDir()): ExampleFile[] {
  const examples = join(dir, 'examples');
  if (!existsSync(examples)) return [];
  return readdirSync(examples)
    .sort()
    .map((file) => ({ href: `/docs/examples/${file}`, text: readFileSync(join(examples, file), 'utf8') }));
}
