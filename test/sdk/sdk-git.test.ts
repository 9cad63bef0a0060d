// @partner-ticketing/sdk from a git URL: `npm run sdk:branch` (scripts/sdk-branch.ts) makes a branch
// `sdk` whose root is packages/sdk, and npm installs `git+file://<clone>#sdk` into an empty project,
// building dist/ there with the package's prepare script. Each test works in its own `git clone` of
// this repository's HEAD, never on this repository's branches. Needs the npm registry (or npm's
// cache) for the SDK's dependency and its build tools.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { newWebhookSecret, webhookHeaders } from '../../src/webhooks/sign-webhook.ts';
import { npmInstall } from './sdk-helpers.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT_FILE = join(ROOT, 'scripts/sdk-branch.ts');
// Outside the repository, so nothing resolves through the repository's node_modules.
const temp = realpathSync(mkdtempSync(join(tmpdir(), 'sdk-git-')));
const AUTHOR = ['-c', 'user.name=SDK test', '-c', 'user.email=sdk-test@example.org'];

// What the partner's script does with the installed package; it prints what it saw as JSON.
const CHECK = `
import { TicketingClient, verifyWebhook, WebhookVerificationError } from '@partner-ticketing/sdk';
const input = JSON.parse(process.env.SDK_CHECK);
const client = new TicketingClient({ clientId: 'ci_check', clientSecret: 'unused', baseUrl: 'http://127.0.0.1:9' });
const webhook = client.webhooks.verify(input.body, input.headers, input.secret);
let tampered = 'accepted';
try {
  verifyWebhook(input.body.replace('hello', 'HELLO'), input.headers, input.secret);
} catch (error) {
  tampered = error instanceof WebhookVerificationError ? error.name : String(error);
}
console.log(JSON.stringify({ webhook, tampered, resolved: import.meta.resolve('@partner-ticketing/sdk') }));
`;

after(() => rmSync(temp, { recursive: true, force: true }));

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await run('git', [...AUTHOR, ...args], { cwd })).stdout.trim();
}

/**
 * A fresh clone of this repository's HEAD under `temp`, of its last commits only: `git subtree
 * split` walks the whole history it is given, some 25 s of CPU per split over the full one.
 */
async function cloneRepository(name: string): Promise<string> {
  const clone = join(temp, name);
  await run('git', ['clone', '--quiet', '--depth=20', pathToFileURL(ROOT).href, clone]);
  return clone;
}

/** Runs this working copy's sdk:branch script in `clone`; returns the `sdk` branch's commit. */
async function splitBranch(clone: string): Promise<string> {
  await run(process.execPath, [SCRIPT_FILE], { cwd: clone });
  return git(clone, 'rev-parse', 'refs/heads/sdk');
}

test('sdk:branch makes a branch whose root is packages/sdk and moves it only forward', async () => {
  const clone = await cloneRepository('branch');
  const head = await git(clone, 'rev-parse', 'HEAD');
  const first = await splitBranch(clone);
  assert.equal(
    await git(clone, 'rev-parse', `${first}^{tree}`),
    await git(clone, 'rev-parse', 'HEAD:packages/sdk'),
  );
  assert.equal(await git(clone, 'rev-parse', 'HEAD'), head, 'the checkout stays where it was');
  assert.equal(await git(clone, 'status', '--porcelain'), '', 'and unchanged');

  await git(clone, 'commit', '--quiet', '--allow-empty', '-m', 'Nothing in the SDK');
  assert.equal(await splitBranch(clone), first, 'a commit outside packages/sdk does not move the branch');

  writeFileSync(join(clone, 'packages/sdk/README.md'), '\nOne more line.\n', { flag: 'a' });
  await git(clone, 'commit', '--quiet', '-am', 'SDK README grows');
  const second = await splitBranch(clone);
  assert.notEqual(second, first);
  assert.equal(await git(clone, 'rev-parse', `${second}^`), first, 'the new commit follows the old tip');
  assert.equal(
    await git(clone, 'rev-parse', `${second}^{tree}`),
    await git(clone, 'rev-parse', 'HEAD:packages/sdk'),
  );
  assert.equal(await git(clone, 'log', '-1', '--format=%s', second), 'SDK README grows');

  // A branch moved elsewhere by hand is refused, not overwritten.
  await git(clone, 'branch', '--force', 'sdk', 'HEAD');
  await assert.rejects(run(process.execPath, [SCRIPT_FILE], { cwd: clone }), (error: { stderr: string }) => {
    assert.match(error.stderr, /sdk:branch: .*not an ancestor/);
    return true;
  });
  assert.equal(await git(clone, 'rev-parse', 'refs/heads/sdk'), await git(clone, 'rev-parse', 'HEAD'));
});

test(
  'the sdk branch installs from a git URL into an empty project, builds, and works there',
  { timeout: 300_000 },
  async () => {
    const clone = await cloneRepository('install');
    const tip = await splitBranch(clone);
    assert.ok(
      !(await git(clone, 'ls-tree', '-r', '--name-only', tip)).includes('dist/'),
      'no dist/ committed',
    );

    const project = join(temp, 'project');
    mkdirSync(project);
    // npm's install-script policy keys a git dependency by its URL; the README says so.
    const url = `git+file://${clone}`;
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'partner-site', private: true, type: 'module', allowScripts: { [url]: true } }),
    );
    await npmInstall(project, `${url}#sdk`, ['--strict-allow-scripts']);
    const installed = join(project, 'node_modules/@partner-ticketing/sdk');
    for (const file of [
      'package.json',
      'README.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/webhooks.js',
    ]) {
      assert.ok(existsSync(join(installed, file)), `${file} is installed`);
    }
    assert.ok(!existsSync(join(installed, 'src')), 'no src/');
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string }>;
    };
    assert.equal(lock.packages['node_modules/@partner-ticketing/sdk']?.resolved, `${url}#${tip}`);

    writeFileSync(join(project, 'check.js'), CHECK);
    const secret = newWebhookSecret();
    const body = JSON.stringify({
      type: 'test',
      timestamp: new Date().toISOString(),
      data: { endpoint_id: 'we_test', message: 'hello from the service' },
    });
    const headers = webhookHeaders({ id: `msg_${randomUUID()}`, at: new Date(), body, secrets: [secret] });
    const { stdout } = await run(process.execPath, ['check.js'], {
      cwd: project,
      env: { ...process.env, SDK_CHECK: JSON.stringify({ body, headers, secret }) },
      timeout: 60_000,
    });
    const seen = JSON.parse(stdout) as { webhook: unknown; tampered: string; resolved: string };
    assert.equal(fileURLToPath(seen.resolved), join(installed, 'dist/index.js'));
    assert.deepEqual(seen.webhook, JSON.parse(body));
    assert.equal(seen.tampered, 'WebhookVerificationError');
  },
);
