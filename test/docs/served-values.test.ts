// The guides served by a service off the defaults (other ports, another DATA_DIR) name that
// service: its URLs and data path in every command and no default port anywhere, and the quick
// start's first command, copied from the page into a bare terminal, sets up for that service.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { seedDemo } from '../../src/demo/seed-demo.ts';
import { fillServiceValues } from '../../src/docs/service-values.ts';
import { TEST_ADMIN_KEY, type Harness } from '../helpers/harness.ts';
import { guideFiles, REPO, startDocsHarness } from './docs-helpers.ts';

let h: Harness;
let urls: { api: string; site: string; app: string };
let dataDir: string;

before(async () => {
  // A folder name a shell would split: the served commands must quote it.
  dataDir = mkdtempSync(join(tmpdir(), 'served docs '));
  const { h: harness, ...hosts } = await startDocsHarness({ DATA_DIR: dataDir });
  h = harness;
  urls = hosts;
  assert.ok(await seedDemo(h.service.ctx, TEST_ADMIN_KEY), 'the demo organization was seeded');
});
after(async () => {
  await h?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function decode(html: string): string {
  return html
    .replace(/<[^>]+>/g, '')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

/** The text of each code block of a served page. */
function servedBlocks(html: string): string[] {
  return [...html.matchAll(/<pre[^>]*><code[^>]*>([\s\S]*?)<\/code><\/pre>/g)].map((m) => decode(m[1]!));
}

async function page(path: string): Promise<string> {
  const res = await h.service.api.inject({ method: 'GET', url: path });
  assert.equal(res.statusCode, 200, path);
  return res.body;
}

const quotedDataDir = () => `'${dataDir}'`;

describe('served guides', () => {
  test('the quick start names this service in its commands, and no default port', async () => {
    const blocks = servedBlocks(await page('/docs/quick-start'));
    assert.ok(blocks.length >= 10, `code blocks: ${blocks.length}`);
    for (const block of blocks) assert.doesNotMatch(block, /:400[0-2]\b|\.data\//, block);
    const settings = `DATA_DIR=${quotedDataDir()} API_URL=${urls.api} SITE_URL=${urls.site} APP_URL=${urls.app}`;
    assert.ok(
      blocks.some((b) => b.includes(`eval "$(${settings} npm run -s cli -- env)"`)),
      blocks.join('\n---\n'),
    );
    assert.ok(blocks.some((b) => b.includes(`${settings} npm run -s cli -- clients update "$CLIENT_ID"`)));
  });

  test('every guide names this service wherever the Markdown shows a default', async () => {
    for (const file of guideFiles()) {
      const path = file === 'README.md' ? '/docs' : `/docs/${file.slice(0, -'.md'.length)}`;
      const text = decode(await page(path));
      assert.doesNotMatch(text, /127\.0\.0\.1:400[0-2]|localhost:400[0-2]/, path);
      assert.doesNotMatch(text, /(^|[\s`'"(])\.data\//m, path);
    }
    const embedded = servedBlocks(await page('/docs/embedded-checkout'));
    assert.ok(embedded.some((b) => b.includes(`<script src="${urls.site}/v1/checkout.js"></script>`)));
    assert.ok(decode(await page('/docs/webhooks')).includes(`${dataDir}/demo.json`));
  });

  test("the served quick start's first command, in a bare terminal, sets up for this service", async () => {
    const first = servedBlocks(await page('/docs/quick-start')).find((b) => b.startsWith('eval '))!;
    const script = `${first}\nprintf '%s\\n' "$API_URL" "$SITE_URL" "$DATA_DIR" "$CLIENT_ID"`;
    const out = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        'bash',
        ['-c', script],
        {
          cwd: REPO,
          // Nothing of the service's settings: the page's command carries them.
          env: {
            PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
            HOME: process.env.HOME ?? '',
          },
          timeout: 60_000,
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr: String(stderr) }),
      ),
    );
    assert.equal(out.code, 0, out.stderr);
    // The block's own echo comes first; the last four lines are the printf's.
    const [api, site, data, clientId] = out.stdout.trimEnd().split('\n').slice(-4);
    assert.deepEqual([api, site, data], [urls.api, urls.site, dataDir]);
    assert.match(clientId!, /^cli_\w+$/);
  });
});

describe('fillServiceValues', () => {
  const defaults = {
    apiUrl: 'http://127.0.0.1:4000',
    siteUrl: 'http://localhost:4001',
    appUrl: 'http://127.0.0.1:4002',
    dataDir: '.data',
  };
  const text = [
    'curl http://127.0.0.1:4000/v1/events and http://localhost:4001/v1/checkout.js',
    'node -pe "require(\'./.data/demo.json\')" reads `.data/demo.json`; JSON.parse(x).data.events stays',
    'eval "$(npm run -s cli -- env)"',
  ].join('\n');

  test('leaves a guide for a service on the defaults as it is', () => {
    assert.equal(fillServiceValues(text, defaults, '/repo'), text);
  });

  test('swaps URLs in one pass, data paths that start a word, and prefixes CLI commands', () => {
    const filled = fillServiceValues(
      text,
      // The API on the default site URL's address: not replaced a second time.
      {
        apiUrl: 'http://localhost:4001',
        siteUrl: 'http://127.0.0.1:5001',
        appUrl: defaults.appUrl,
        dataDir: 'var/data',
      },
      '/repo',
    );
    assert.equal(
      filled,
      [
        'curl http://localhost:4001/v1/events and http://127.0.0.1:5001/v1/checkout.js',
        'node -pe "require(\'/repo/var/data/demo.json\')" reads `/repo/var/data/demo.json`; JSON.parse(x).data.events stays',
        'eval "$(DATA_DIR=/repo/var/data API_URL=http://localhost:4001 SITE_URL=http://127.0.0.1:5001 npm run -s cli -- env)"',
      ].join('\n'),
    );
  });

  test('an in-memory database names no data path', () => {
    const filled = fillServiceValues(text, { ...defaults, dataDir: 'memory://' }, '/repo');
    assert.equal(filled, text);
  });
});
