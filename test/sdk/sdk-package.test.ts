// @partner-ticketing/sdk as a partner installs it: `npm pack` builds it (its prepare script)
// into a tarball with dist/ and no src/, npm installs that tarball into an empty project, and a
// script there imports the package by name and talks to a listening service: token, events, a
// checkout session, and a webhook signed by the service's own signing code. Needs the npm registry
// (or npm's cache) for the package's one dependency, standardwebhooks.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { newWebhookSecret, webhookHeaders } from '../../src/webhooks/sign-webhook.ts';
import { npmInstall, NPM_TIMEOUT_MS } from './sdk-helpers.ts';
import { makeEvent, makePartner, type Harness } from '../helpers/harness.ts';
import { startListeningService } from './sdk-helpers.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SDK = join(ROOT, 'packages/sdk');
// Outside the repository, so nothing resolves through the repository's node_modules.
const temp = realpathSync(mkdtempSync(join(tmpdir(), 'sdk-package-')));

// What the partner's script does with the installed package; it prints what it saw as JSON.
const SCRIPT = `
import { TicketingClient, verifyWebhook } from '@partner-ticketing/sdk';
const input = JSON.parse(process.env.SDK_CHECK);
const client = new TicketingClient({ clientId: input.clientId, clientSecret: input.clientSecret, baseUrl: input.api });
const token = await client.accessToken();
const events = [];
for await (const event of client.events.list()) events.push(event.event_id);
const session = await client.checkoutSessions.create({
  event_id: input.eventId,
  on_success_url: 'https://shop.example.org/thanks',
  on_cancel_url: 'https://shop.example.org/',
});
const webhook = verifyWebhook(input.webhook.body, input.webhook.headers, input.webhook.secret);
let tampered = 'accepted';
try {
  verifyWebhook(input.webhook.body.replace('hello', 'HELLO'), input.webhook.headers, input.webhook.secret);
} catch (error) {
  tampered = error.name;
}
const resolved = import.meta.resolve('@partner-ticketing/sdk');
console.log(JSON.stringify({ tokenLength: token.length, events, session, webhook, tampered, resolved }));
`;

let h: Harness;
let api: string;

before(async () => {
  ({ h, api } = await startListeningService());
});
after(async () => {
  await h?.close();
  rmSync(temp, { recursive: true, force: true });
});

test(
  'the packed SDK installs into an empty project and works there by its name',
  { timeout: 300_000 },
  async () => {
    const packs = join(temp, 'packs');
    const project = join(temp, 'project');
    await run('npm', ['pack', '--pack-destination', mkdirOf(packs)], { cwd: SDK, timeout: NPM_TIMEOUT_MS });
    const [tarball, ...others] = readdirSync(packs);
    assert.equal(others.length, 0, 'one tarball');
    assert.match(tarball!, /^partner-ticketing-sdk-\d+\.\d+\.\d+\.tgz$/);

    const { stdout: listing } = await run('tar', ['-tzf', join(packs, tarball!)]);
    const files = listing.split('\n').filter(Boolean);
    for (const file of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/client.js']) {
      assert.ok(files.includes(`package/${file}`), `${file} is in the tarball: ${files.join(', ')}`);
    }
    assert.deepEqual(
      files.filter((f) => !/^package\/(package\.json|README\.md|dist\/[\w-]+\.(js|d\.ts|js\.map))$/.test(f)),
      [],
      'nothing but dist/, README.md and package.json',
    );

    writeFileSync(
      join(mkdirOf(project), 'package.json'),
      JSON.stringify({ name: 'partner-site', private: true, type: 'module' }),
    );
    // The tarball has dist/ already: it needs no install script, whatever npm allows.
    await npmInstall(project, join(packs, tarball!));
    writeFileSync(join(project, 'check.js'), SCRIPT);

    const partner = await makePartner(h);
    const event = await makeEvent(h, partner);
    const secret = newWebhookSecret();
    const body = JSON.stringify({
      type: 'test',
      timestamp: new Date().toISOString(),
      data: { endpoint_id: 'we_test', message: 'hello from the service' },
    });
    const headers = webhookHeaders({ id: `msg_${randomUUID()}`, at: new Date(), body, secrets: [secret] });
    const input = { ...partner, api, eventId: event.id, webhook: { body, headers, secret } };
    // Async: the service answering the script runs in this process.
    const { stdout } = await run(process.execPath, ['check.js'], {
      cwd: project,
      env: { ...process.env, SDK_CHECK: JSON.stringify(input) },
      timeout: 60_000,
    });
    const seen = JSON.parse(stdout) as {
      tokenLength: number;
      events: string[];
      session: { id: string; url: string; status: string };
      webhook: { type: string; data: { message: string } };
      tampered: string;
      resolved: string;
    };
    assert.equal(
      fileURLToPath(seen.resolved),
      join(project, 'node_modules/@partner-ticketing/sdk/dist/index.js'),
      'the package resolves from the project, to its dist/',
    );
    assert.ok(seen.tokenLength > 0, 'a token');
    assert.deepEqual(seen.events, [event.id]);
    assert.match(seen.session.id, /^cs_/);
    assert.ok(seen.session.url.startsWith('http'), seen.session.url);
    assert.deepEqual(seen.webhook, JSON.parse(body));
    assert.equal(seen.tampered, 'WebhookVerificationError');
  },
);

function mkdirOf(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}
