// Markdown of the partner guides -> HTML: markdown-it with raw HTML off (the pages run no script
// and their CSP allows none), headings that link to themselves, and links between the guides'
// .md files rewritten to their /docs pages, so the same files read well on GitHub and when served.
import MarkdownIt, { type Token } from 'markdown-it';

/** GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2. */
export function slugger(): (text: string) => string {
  const seen = new Map<string, number>();
  return (text) => {
    const base = text
      .toLowerCase()
      .trim()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return count === 0 ? base : `${base}-${count}`;
  };
}

/** The text of a heading's inline token, as GitHub slugs it (code spans keep their text). */
function inlineText(token: Token | undefined): string {
  return (token?.children ?? [])
    .filter((child) => child.type === 'text' || child.type === 'code_inline')
    .map((child) => child.content)
    .join('');
}

/** Where a relative link of a guide goes once served: guide.md#x -> /docs/guide#x. */
function servedHref(href: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/') || href.startsWith('#')) return href;
  const hashAt = href.indexOf('#');
  const file = hashAt < 0 ? href : href.slice(0, hashAt);
  const hash = hashAt < 0 ? '' : href.slice(hashAt);
  const path = file.replace(/^\.\//, '');
  if (path === 'README.md') return `/docs${hash}`;
  if (path.endsWith('.md')) return `/docs/${path.slice(0, -'.md'.length)}${hash}`;
  return `/docs/${path}${hash}`;
}

export interface RenderedGuide {
  title: string;
  html: string;
}

const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
/** markdown-it's Token class, which it exposes on its parser states only. */
const TokenOf = new md.core.State('', md, {}).Token;

md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  const token = tokens[idx]!;
  const href = token.attrGet('href');
  if (href !== null) token.attrSet('href', servedHref(String(href)));
  return self.renderToken(tokens, idx, options);
};

/** HTML comments on lines of their own: notes for tools (the quick start's test), not for readers. */
const COMMENT_LINES = /^<!--[^\n]*-->\n/gm;

// Code blocks and tables scroll sideways on narrow screens: focusable, so that a keyboard can
// scroll them too.
const fence = md.renderer.rules.fence!;
md.renderer.rules.fence = (tokens, idx, options, env, self) =>
  fence(tokens, idx, options, env, self).replace(/^<pre>/, '<pre tabindex="0">');
md.renderer.rules.table_open = () => '<table tabindex="0">\n';

export function renderGuide(markdown: string): RenderedGuide {
  const tokens = md.parse(markdown.replace(COMMENT_LINES, ''), {});
  const slug = slugger();
  let title = '';
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.type !== 'heading_open') continue;
    const inline = tokens[i + 1];
    const text = inlineText(inline);
    if (token.tag === 'h1' && title === '') title = text;
    const id = slug(text);
    token.attrSet('id', id);
    // The heading's text becomes a link to itself, so a section's address can be copied.
    if (inline?.children) {
      const open = new TokenOf('link_open', 'a', 1);
      open.attrSet('href', `#${id}`);
      open.attrSet('class', 'anchor');
      const close = new TokenOf('link_close', 'a', -1);
      inline.children = [open, ...inline.children, close];
    }
  }
  return { title, html: md.renderer.render(tokens, md.options, {}) };
}
