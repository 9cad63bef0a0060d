// Shared by the docs tests: the guides folder, a service listening on loopback ports with local
// webhook receivers allowed (as NODE_ENV=development allows them), and fenced code blocks.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { freePort } from '../helpers/process.ts';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const GUIDES = join(REPO, 'docs', 'partners');

export function guideFiles(): string[] {
  return readdirSync(GUIDES)
    .filter((file) => file.endsWith('.md'))
    .sort();
}

export function readGuide(file: string): string {
  return readFileSync(join(GUIDES, file), 'utf8');
}

/**
 * startListeningHarness (test/e2e/browser-helpers.ts) with local webhook receivers allowed and
 * the outbox polled a hundred times faster: the quick start registers http://localhost. Each
 * host on a free port, never a default one; `env` adds settings (a DATA_DIR).
 */
export async function startDocsHarness(
  env: Record<string, string> = {},
): Promise<{ h: Harness; api: string; site: string; app: string }> {
  const [api, site, app] = [await freePort(), await freePort(), await freePort()].map(
    (port) => `http://127.0.0.1:${port}`,
  ) as [string, string, string];
  const h = await startHarness({
    env: {
      API_URL: api,
      SITE_URL: site,
      APP_URL: app,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIME_SCALE: '0.01',
      ...env,
    },
  });
  await h.service.listen();
  return { h, api, site, app };
}

export interface CodeBlock {
  info: string;
  text: string;
  /** the HTML comment on the line before the opening fence, if any */
  note: string | null;
}

/** The fenced code blocks of a Markdown text, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.startsWith(fence)) body.push(lines[j++]!);
    const before =
      lines
        .slice(0, i)
        .reverse()
        .find((line) => line.trim() !== '') ?? '';
    blocks.push({
      info: open[2]!.trim(),
      text: body.join('\n'),
      note: /^<!--(.*)-->$/.exec(before.trim())?.[1]?.trim() ?? null,
    });
    i = j;
  }
  return blocks;
}
