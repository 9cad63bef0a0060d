// The admin CLI as a person runs it: a child process talking HTTP to a listening service.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { insertApiClient } from '../../src/auth/clients.ts';
import { startHarness, TEST_ADMIN_KEY, type Harness } from '../helpers/harness.ts';
import { operatorEnv } from '../helpers/process.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const DAY = 24 * 3600 * 1000;

let h: Harness;
let appUrl: string;
let dir: string;

before(async () => {
  h = await startHarness({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  appUrl = (await h.service.listen({ api: 0, site: 0, app: 0 })).app;
  dir = mkdtempSync(join(tmpdir(), 'ticketing-cli-'));
});
after(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI asynchronously (the service answering it lives in this process). */
function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  const base: Record<string, string | undefined> = {
    ...operatorEnv(),
    APP_URL: appUrl,
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    DATA_DIR: join(dir, 'no-such-dir'),
  };
  const merged = Object.fromEntries(
    Object.entries({ ...base, ...env }).filter((e): e is [string, string] => e[1] !== undefined),
  );
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: merged, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function json(run: Run) {
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

describe('ticketing CLI', () => {
  test('create org -> create client -> list, in text and in JSON', async () => {
    const org = json(
      await cli(['orgs', 'create', '--name', 'CLI Runners', '--payments-enabled', 'true', '--json']),
    );
    assert.match(org.id, /^org_/);
    assert.equal(org.name, 'CLI Runners');
    assert.equal(org.payments_enabled, true);

    const created = await cli([
      'clients',
      'create',
      '--org',
      org.id,
      '--name',
      'Web shop',
      '--scope',
      'events:read',
      '--scope',
      'checkout_sessions:write',
      '--allowed-domain',
      'https://shop.example.org',
      '--allowed-domain',
      'http://localhost:5173',
      '--return-url-domain',
      'https://shop.example.org',
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stderr, '');
    const secret = /^client_secret\s+(sk_\S+)$/m.exec(created.stdout)?.[1];
    const clientId = /^client_id\s+(cli_\S+)$/m.exec(created.stdout)?.[1];
    assert.ok(secret && clientId, created.stdout);
    assert.match(created.stdout, /^scopes\s+events:read, checkout_sessions:write$/m);
    assert.match(
      created.stdout,
      /^allowed_domains\s+https:\/\/shop\.example\.org, http:\/\/localhost:5173$/m,
    );
    assert.match(created.stdout, /shown only this once/);

    // The secret printed is the real one: it mints a token.
    const token = await h.service.api.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `grant_type=client_credentials&client_id=${clientId}&client_secret=${secret}`,
    });
    assert.equal(token.statusCode, 200, token.body);

    const listed = await cli(['clients', 'list', '--org', org.id]);
    assert.equal(listed.code, 0, listed.stderr);
    const [header, row, ...more] = listed.stdout.trimEnd().split('\n');
    assert.match(header!, /^client_id\s+status\s+name\s+scopes\s+allowed_domains$/);
    assert.match(
      row!,
      new RegExp(`^${clientId}\\s+active\\s+Web shop\\s+events:read, checkout_sessions:write`),
    );
    assert.deepEqual(more, []);
    assert.equal(listed.stdout.includes(secret!), false, 'the list never shows the secret');

    const listJson = json(await cli(['clients', 'list', '--org', org.id, '--json']));
    assert.deepEqual(
      listJson.clients.map((c: { client_id: string }) => c.client_id),
      [clientId],
    );
    assert.equal('client_secret' in listJson.clients[0], false);

    const orgs = await cli(['orgs', 'list']);
    assert.equal(orgs.code, 0, orgs.stderr);
    assert.match(orgs.stdout, new RegExp(`^${org.id}\\s+CLI Runners\\s+true`, 'm'));
  });

  test('clients update adds and removes one origin at a time; replacing a list is explicit', async () => {
    const org = json(await cli(['orgs', 'create', '--name', 'List Runners', '--json']));
    const created = json(
      await cli([
        'clients',
        'create',
        '--org',
        org.id,
        '--name',
        'Shop',
        '--scope',
        'events:read',
        '--allowed-domain',
        'https://a.example.org',
        '--json',
      ]),
    );
    const update = async (...flags: string[]) => {
      const run = await cli(['clients', 'update', created.client_id, ...flags, '--json']);
      assert.equal(run.code, 0, run.stderr);
      const client = JSON.parse(run.stdout);
      return [client.allowed_domains, client.return_url_domains];
    };
    assert.deepEqual(await update('--add-allowed-domain', 'https://b.example.org'), [
      ['https://a.example.org', 'https://b.example.org'],
      [],
    ]);
    assert.deepEqual(
      await update(
        '--remove-allowed-domain',
        'https://a.example.org',
        '--add-return-url-domain',
        'https://b.example.org',
      ),
      [['https://b.example.org'], ['https://b.example.org']],
    );
    assert.deepEqual(
      await update(
        '--set-allowed-domains',
        'https://c.example.org',
        '--set-allowed-domains',
        'https://d.example.org',
      ),
      [['https://c.example.org', 'https://d.example.org'], ['https://b.example.org']],
    );
    assert.deepEqual(await update('--clear-return-url-domains'), [
      ['https://c.example.org', 'https://d.example.org'],
      [],
    ]);

    const refusals: Array<[string[], RegExp]> = [
      [['--allowed-domain', 'https://x.example.org'], /--add-allowed-domain or --remove-allowed-domain/],
      [
        ['--add-allowed-domain', 'https://x.example.org', '--set-allowed-domains', 'https://y.example.org'],
        /use one of/,
      ],
    ];
    for (const [flags, message] of refusals) {
      const run = await cli(['clients', 'update', created.client_id, ...flags]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, message);
    }
    const [allowed] = await update('--name', 'Shop');
    assert.deepEqual(
      allowed,
      ['https://c.example.org', 'https://d.example.org'],
      'a refusal changed nothing',
    );
  });

  test('clients create and update set the display name buyers see; --clear-display-name removes it', async () => {
    const org = json(await cli(['orgs', 'create', '--name', 'Named Runners', '--json']));
    const created = await cli([
      'clients',
      'create',
      '--org',
      org.id,
      '--name',
      'Shop',
      '--display-name',
      'Kampala Runners Club',
      '--scope',
      'events:read',
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^display_name\s+Kampala Runners Club$/m);
    const clientId = /^client_id\s+(cli_\S+)$/m.exec(created.stdout)?.[1];
    assert.ok(clientId, created.stdout);
    const renamed = json(await cli(['clients', 'update', clientId!, '--display-name', 'KRC shop', '--json']));
    assert.equal(renamed.display_name, 'KRC shop');
    const cleared = json(await cli(['clients', 'update', clientId!, '--clear-display-name', '--json']));
    assert.equal(cleared.display_name, null);

    const both = await cli(['clients', 'update', clientId!, '--display-name', 'X', '--clear-display-name']);
    assert.equal(both.code, 2, both.stderr);
    assert.match(both.stderr, /use one of --display-name and --clear-display-name/);
    const tooLong = await cli(['clients', 'update', clientId!, '--display-name', 'x'.repeat(61)]);
    assert.notEqual(tooLong.code, 0);
    assert.match(tooLong.stderr, /validation_failed/);
    assert.match(tooLong.stderr, /display_name: must be at most 60 characters/);
    const control = await cli(['clients', 'update', clientId!, '--display-name', 'KRC\tshop']);
    assert.notEqual(control.code, 0);
    assert.match(control.stderr, /display_name: must not contain control characters/);
    const read = json(await cli(['clients', 'get', clientId!, '--json']));
    assert.equal(read.display_name, null, 'a refusal changed nothing');
  });

  test('events from a file; update, rotate, regenerate and revoke through the CLI', async () => {
    const org = json(await cli(['orgs', 'create', '--name', 'Event Org', '--json']));
    const now = h.clock.now().getTime();
    const file = join(dir, 'event.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'Lakeside 10K',
        handle: 'lakeside-10k',
        status: 'draft',
        starts_at: new Date(now + 30 * DAY).toISOString(),
        ends_at: new Date(now + 30 * DAY + 4 * 3600_000).toISOString(),
        timezone: 'Africa/Kampala',
        currency: 'UGX',
        reg_opens_at: new Date(now - DAY).toISOString(),
        reg_closes_at: new Date(now + 29 * DAY).toISOString(),
        ticket_types: [{ name: '10 km', price_minor: 25000, capacity: 400 }],
      }),
    );
    const created = await cli(['events', 'create', '--org', org.id, '--file', file]);
    assert.equal(created.code, 0, created.stderr);
    const eventId = /^event\s+(evt_\S+)$/m.exec(created.stdout)?.[1];
    assert.ok(eventId, created.stdout);
    assert.match(created.stdout, /^status\s+draft$/m);
    assert.match(created.stdout, /^\s+tt_\S+\s+10 km\s+25000\s+400\s+0\s+0\s+400$/m);

    const updated = json(await cli(['events', 'update', eventId!, '--status', 'open', '--json']));
    assert.equal(updated.status, 'open');
    const listed = await cli(['events', 'list', '--org', org.id]);
    assert.match(
      listed.stdout,
      new RegExp(`^${eventId}\\s+open\\s+public\\s+\\S+\\s+lakeside-10k\\s+Lakeside 10K$`, 'm'),
    );

    const client = json(
      await cli(['clients', 'create', '--org', org.id, '--name', 'Srv', '--scope', 'orders:read', '--json']),
    );
    const rotated = json(await cli(['clients', 'rotate-secret', client.client_id, '--json']));
    assert.match(rotated.client_secret, /^sk_/);
    assert.notEqual(rotated.client_secret, client.client_secret);
    const regenerated = await cli(['clients', 'regenerate-publishable-key', client.client_id]);
    assert.equal(regenerated.code, 0, regenerated.stderr);
    const newKey = /^publishable_key\s+(pk_\S+)$/m.exec(regenerated.stdout)?.[1];
    assert.ok(newKey && newKey !== client.publishable_key);
    const revoked = await cli(['clients', 'revoke', client.client_id]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, /^status\s+revoked$/m);
    const again = await cli(['clients', 'rotate-secret', client.client_id]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^error conflict: This client is revoked/);
  });

  test('an API validation error prints each field and exits 1', async () => {
    const org = json(await cli(['orgs', 'create', '--name', 'Strict Org', '--json']));
    const run = await cli([
      'clients',
      'create',
      '--org',
      org.id,
      '--name',
      'Bad',
      '--scope',
      'events:read',
      '--scope',
      'everything',
      '--allowed-domain',
      'http://shop.example.org',
    ]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    const lines = run.stderr.trimEnd().split('\n');
    assert.equal(
      lines[0],
      'error validation_failed: scopes[1]: is not a known scope; use any of: events:read, checkout_sessions:write, checkout_sessions:read, orders:read, orders:write, webhooks:write',
    );
    assert.match(lines[1]!, /^ {2}scopes\[1\]: is not a known scope/);
    assert.match(lines[2]!, /^ {2}allowed_domains\[0\]: must be an origin such as/);
    assert.match(lines[3]!, /^ {2}\(request req_\w+\)$/);
    const missing = await cli(['orgs', 'get', 'org_doesnotexist0000000000000']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error not_found: No such organization\.$/m);
  });

  test('clients create past the limit of live clients prints client_limit_reached and exits 1; revoke frees a place', async () => {
    const org = json(await cli(['orgs', 'create', '--name', 'Busy Org', '--json']));
    const db = h.service.ctx.database.db;
    for (let i = 0; i < 24; i++) {
      const input = { name: `Seeded ${i}`, scopes: ['events:read' as const] };
      await insertApiClient(db, {
        organizationId: org.id,
        ...input,
        allowedDomains: [],
        returnUrlDomains: [],
      });
    }
    const create = (name: string) =>
      cli(['clients', 'create', '--org', org.id, '--name', name, '--scope', 'events:read', '--json']);
    const last = json(await create('Twenty-fifth'));

    const refused = await create('Twenty-sixth');
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.match(
      refused.stderr,
      /^error client_limit_reached: This organization has 25 active API clients and may have at most 25; revoke one it no longer uses, then create the new one\.\n {2}\(request req_\w+\)\n$/,
    );
    const listed = json(await cli(['clients', 'list', '--org', org.id, '--json']));
    assert.equal(listed.clients.length, 25, 'nothing created');

    assert.equal((await cli(['clients', 'revoke', last.client_id])).code, 0);
    assert.equal(json(await create('In its place')).status, 'active');
  });

  test('payments needs-refund lists what must be refunded, in text and in JSON', async () => {
    const org = json(await cli(['orgs', 'create', '--name', 'Refund Org', '--json']));
    const none = await cli(['payments', 'needs-refund', '--org', org.id]);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, '(none)\n');
    assert.deepEqual(json(await cli(['payments', 'needs-refund', '--org', org.id, '--json'])), {
      payments: [],
      has_more: false,
    });
    const missing = await cli(['payments', 'needs-refund']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--org is required/);
    const unknown = await cli(['payments', 'needs-refund', '--org', 'org_doesnotexist0000000000000']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^error not_found: No such organization\.$/m);
  });

  test('payments refund asks the admin API; a refusal is its error and nothing else', async () => {
    const org = json(await cli(['orgs', 'create', '--name', 'Refunding Org', '--json']));
    const unknown = await cli([
      'payments',
      'refund',
      '--org',
      org.id,
      '--order',
      'ord_doesnotexist0000000000000',
      '--runner',
      'reg_a',
      '--reason',
      'Injured',
    ]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^error not_found: No such order\.$/m);
    const badAmount = await cli([
      'payments',
      'refund',
      '--org',
      org.id,
      '--order',
      'ord_x',
      '--amount',
      '1.5',
    ]);
    assert.equal(badAmount.code, 2);
    assert.match(badAmount.stderr, /--amount must be a whole number/);
    const missing = await cli(['payments', 'refund', '--org', org.id]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--order is required/);
  });

  test('usage errors exit 2 with a short usage text', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['clients', 'create', '--org', 'org_x', '--scope', 'events:read'], /--name is required/],
      [['orgs', 'create', '--nmae', 'typo'], /Unknown option '--nmae'/],
      [['orgs', 'get'], /orgs get takes one <org_id>/],
      [['orgs', 'list', 'extra'], /orgs list takes no argument/],
      [['orgs', 'update', 'org_x'], /nothing to change/],
      [
        ['orgs', 'create', '--name', 'x', '--payments-enabled', 'maybe'],
        /--payments-enabled takes true or false/,
      ],
      [
        ['events', 'create', '--org', 'org_x', '--file', join(dir, 'missing.json')],
        /cannot read .*missing\.json as JSON/,
      ],
      [['orgs', 'explode'], /unknown orgs command "explode"/],
      [['teleport'], /unknown command "teleport"/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(args);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message, args.join(' '));
      assert.match(run.stderr, /Usage: ticketing/, args.join(' '));
      assert.equal(run.stdout, '');
    }
    const none = await cli([]);
    assert.equal(none.code, 2);
    const help = await cli(['help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /clients regenerate-publishable-key <client_id>/);
  });

  test('takes the admin key from DATA_DIR/demo.json when ADMIN_API_KEY is unset; refuses a wrong key', async () => {
    const dataDir = join(dir, 'data');
    const noKey = await cli(['orgs', 'list'], { ADMIN_API_KEY: undefined, DATA_DIR: dataDir });
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /no admin key: set ADMIN_API_KEY/);
    writeFileSync(join(dir, 'demo.json'), JSON.stringify({ admin_api_key: TEST_ADMIN_KEY }));
    const fromFile = await cli(['orgs', 'list', '--json'], { ADMIN_API_KEY: undefined, DATA_DIR: dir });
    assert.ok(Array.isArray(json(fromFile).organizations));
    const wrong = await cli(['orgs', 'list'], { ADMIN_API_KEY: 'adm_wrong_key_0123456789abcdefghij' });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /^error unauthorized: /);
  });

  test('a service that cannot be reached is exit 1 with the address', async () => {
    const run = await cli(['orgs', 'list'], { APP_URL: 'http://127.0.0.1:9' });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^error: could not reach the admin API at http:\/\/127\.0\.0\.1:9: /);
  });

  test('webhooks: create shows the secret once, list, test event, deliveries, disable, delete', async () => {
    const org = json(await cli(['orgs', 'create', '--name', 'Hook Club', '--json']));
    const created = await cli([
      'webhooks',
      'create',
      '--org',
      org.id,
      '--endpoint-url',
      'http://127.0.0.1:9/hooks',
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /secret +whsec_/);
    const endpointId = /id +(whe_\w+)/.exec(created.stdout)![1]!;
    const listed = json(await cli(['webhooks', 'list', '--org', org.id, '--json']));
    assert.deepEqual(
      listed.webhook_endpoints.map((e: { id: string }) => e.id),
      [endpointId],
    );
    assert.equal(JSON.stringify(listed).includes('whsec_'), false, 'the secret is never listed');
    const queued = json(await cli(['webhooks', 'test', endpointId, '--json']));
    assert.equal(queued.event_type, 'test');
    const deliveries = json(await cli(['webhooks', 'deliveries', endpointId, '--json']));
    assert.equal(deliveries.deliveries[0].id, queued.id);
    assert.equal(json(await cli(['webhooks', 'disable', endpointId, '--json'])).status, 'disabled');
    const retry = await cli(['webhooks', 'retry', endpointId]);
    assert.equal(retry.code, 2, 'usage error without --delivery');
    assert.equal(json(await cli(['webhooks', 'delete', endpointId, '--json'])).deleted, true);
    const gone = await cli(['webhooks', 'get', endpointId]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr + gone.stdout, /not_found/);
  });
});
