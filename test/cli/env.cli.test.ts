// `ticketing env` as a partner runs it: `eval "$(... env)"` in bash, then the exported credentials
// used against the service they name. Also the defaults, shell quoting, and the one-line errors
// when demo.json is missing or broken and when a URL is bad.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedDemo } from '../../src/demo/index.ts';
import type { DemoCredentials } from '../../src/demo/seed-demo.ts';
import { shellQuote } from '../../src/cli/commands/env.ts';
import { startHarness, TEST_ADMIN_KEY, type Harness } from '../helpers/harness.ts';
import { freePort, operatorEnv } from '../helpers/process.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

let h: Harness;
let urls: { api: string; site: string; app: string };
let dir: string;
let demo: DemoCredentials;

before(async () => {
  const [api, site, app] = [await freePort(), await freePort(), await freePort()];
  urls = { api: `http://127.0.0.1:${api}`, site: `http://127.0.0.1:${site}`, app: `http://127.0.0.1:${app}` };
  h = await startHarness({ env: { API_URL: urls.api, SITE_URL: urls.site, APP_URL: urls.app } });
  await h.service.listen();
  demo = (await seedDemo(h.service.ctx, TEST_ADMIN_KEY))!;
  assert.ok(demo, 'the demo organization was seeded');
  dir = mkdtempSync(join(tmpdir(), 'ticketing-env-'));
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'demo.json'), JSON.stringify(demo, null, 2));
});
after(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], env: Record<string, string>, cwd = dir): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { env: { ...operatorEnv(), ...env }, cwd, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const cliEnv = (env: Record<string, string>, args: string[] = []) =>
  run(process.execPath, [CLI, 'env', ...args], env);

describe('ticketing env', () => {
  test('bash evaluates its lines to the service configuration and the demo client, which get a token', async () => {
    // A relative DATA_DIR, as `npm start` resolves it: against the folder the command runs in.
    const env = { API_URL: urls.api, SITE_URL: urls.site, APP_URL: urls.app, DATA_DIR: 'data' };
    const printed = await cliEnv(env);
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(printed.stderr, '');
    assert.deepEqual(
      printed.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('=')[0]),
      [
        'export API_URL',
        'export SITE_URL',
        'export APP_URL',
        'export DATA_DIR',
        'export CLIENT_ID',
        'export CLIENT_SECRET',
        'export PUBLISHABLE_KEY',
      ],
    );
    const script = [
      printed.stdout,
      'printf "%s\\n" "$API_URL" "$SITE_URL" "$APP_URL" "$DATA_DIR" "$CLIENT_ID" "$CLIENT_SECRET" "$PUBLISHABLE_KEY"',
      'curl -s -X POST "$API_URL/v1/oauth/token" -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials',
    ].join('\n');
    const shell = await run('bash', ['-c', script], {});
    assert.equal(shell.code, 0, shell.stderr);
    const lines = shell.stdout.split('\n');
    assert.deepEqual(lines.slice(0, 7), [
      urls.api,
      urls.site,
      urls.app,
      join(dir, 'data'),
      demo.client_id,
      demo.client_secret,
      demo.publishable_key,
    ]);
    const token = JSON.parse(lines.slice(7).join('\n')) as { access_token?: string; token_type?: string };
    assert.equal(token.token_type, 'Bearer', lines.slice(7).join('\n'));
    assert.ok(token.access_token);
  });

  test('without URL settings it prints the service defaults', async () => {
    const printed = await cliEnv({ DATA_DIR: join(dir, 'data') });
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /^export API_URL='http:\/\/127\.0\.0\.1:4000'$/m);
    assert.match(printed.stdout, /^export SITE_URL='http:\/\/localhost:4001'$/m);
    assert.match(printed.stdout, /^export APP_URL='http:\/\/127\.0\.0\.1:4002'$/m);
  });

  test('quotes values so that bash reads them back unchanged', async () => {
    const odd = join(dir, 'it\'s $HOME `x` \\ "q"');
    mkdirSync(odd);
    writeFileSync(
      join(odd, 'demo.json'),
      JSON.stringify({
        client_id: "cli_'a'",
        client_secret: 'sk_$(echo no)`b`',
        publishable_key: 'pk_"c" \\n',
      }),
    );
    const printed = await cliEnv({ DATA_DIR: odd });
    assert.equal(printed.code, 0, printed.stderr);
    const shell = await run(
      'bash',
      [
        '-c',
        `${printed.stdout}\nprintf '%s\\n' "$DATA_DIR" "$CLIENT_ID" "$CLIENT_SECRET" "$PUBLISHABLE_KEY"`,
      ],
      {},
    );
    assert.equal(shell.code, 0, shell.stderr);
    assert.deepEqual(shell.stdout.split('\n').slice(0, 4), [
      odd,
      "cli_'a'",
      'sk_$(echo no)`b`',
      'pk_"c" \\n',
    ]);
    assert.equal(shellQuote("a'b"), `'a'\\''b'`);
  });

  test('without demo.json it says, in one line, which file and to run npm start; exit 1', async () => {
    const missing = join(dir, 'never-started');
    const printed = await cliEnv({ DATA_DIR: missing });
    assert.equal(printed.code, 1);
    assert.equal(printed.stdout, '');
    assert.equal(printed.stderr.trimEnd().split('\n').length, 1, printed.stderr);
    assert.ok(printed.stderr.includes(join(missing, 'demo.json')), printed.stderr);
    assert.ok(printed.stderr.includes('npm start'), printed.stderr);
  });

  test('a demo.json that is not JSON or lacks the secret is named; exit 1', async () => {
    const broken = join(dir, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'demo.json'), '{"client_id":');
    const notJson = await cliEnv({ DATA_DIR: broken });
    assert.equal(notJson.code, 1);
    assert.equal(notJson.stdout, '');
    assert.match(notJson.stderr, /^error: .*broken\/demo\.json is not JSON/);

    writeFileSync(join(broken, 'demo.json'), JSON.stringify({ client_id: 'cli_x', publishable_key: 'pk_x' }));
    const noSecret = await cliEnv({ DATA_DIR: broken });
    assert.equal(noSecret.code, 1);
    assert.equal(noSecret.stdout, '');
    assert.match(noSecret.stderr, /demo\.json has no client_secret/);
  });

  test('a bad URL setting or an argument is a usage error; exit 2', async () => {
    const badUrl = await cliEnv({ DATA_DIR: join(dir, 'data'), SITE_URL: 'localhost:4001' });
    assert.equal(badUrl.code, 2);
    assert.equal(badUrl.stdout, '');
    assert.match(badUrl.stderr, /^error: SITE_URL must be an absolute http\(s\) URL/);

    const extra = await cliEnv({ DATA_DIR: join(dir, 'data') }, ['--json']);
    assert.equal(extra.code, 2);
    assert.equal(extra.stdout, '');
    assert.match(extra.stderr, /env takes no argument/);
  });
});
