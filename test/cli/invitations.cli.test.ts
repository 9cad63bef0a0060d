// `ticketing invitations ...` as an operator runs it: a child process talking HTTP to a listening
// service, printing a link that really works.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { acceptInvitation, findInvitation } from '../../src/members/invitations.ts';
import { createOrganization } from '../../src/organizations/organizations.ts';
import { startHarness, TEST_ADMIN_KEY, type Harness } from '../helpers/harness.ts';
import { operatorEnv } from '../helpers/process.ts';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

let h: Harness;
let appUrl: string;

before(async () => {
  h = await startHarness();
  appUrl = (await h.service.listen({ api: 0, site: 0, app: 0 })).app;
});
after(() => h.close());

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): Promise<Run> {
  const env = {
    ...operatorEnv(),
    APP_URL: appUrl,
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    DATA_DIR: 'memory://',
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const makeOrg = (name: string) => createOrganization(h.service.ctx.database.db, { name });

describe('ticketing invitations', () => {
  test('create prints the invitation URL and expiry; the link makes the owner', async () => {
    const org = await makeOrg('CLI Club');
    const run = await cli([
      'invitations',
      'create',
      '--organization',
      org.id,
      '--email',
      'owner@cli-club.example.org',
      '--role',
      'owner',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    const url = /^invitation_url\s+(\S+)$/m.exec(run.stdout)?.[1];
    assert.ok(url, run.stdout);
    assert.match(url, /\/invitations\/[A-Za-z0-9]{43}$/);
    assert.match(run.stdout, /^expires_at\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/m);
    assert.match(run.stdout, /^email\s+owner@cli-club\.example\.org$/m);
    assert.match(run.stdout, /^role\s+owner$/m);
    assert.match(run.stdout, /works once/);

    const token = url.split('/invitations/')[1]!;
    const found = await findInvitation(h.service.ctx.database.db, token, h.clock.now());
    assert.ok(found.ok);
    assert.equal(found.organizationName, 'CLI Club');
    const accepted = await acceptInvitation(
      h.service.ctx.database,
      token,
      { password: 'the owner password' },
      h.clock.now(),
    );
    assert.ok(accepted.ok);
    assert.equal(accepted.organizationId, org.id);
  });

  test('--json prints the data object; --org works as in the other commands; list shows pending ones', async () => {
    const org = await makeOrg('JSON Club');
    const run = await cli([
      'invitations',
      'create',
      '--org',
      org.id,
      '--email',
      'dev@json-club.example.org',
      '--role',
      'developer',
      '--json',
    ]);
    assert.equal(run.code, 0, run.stderr);
    const data = JSON.parse(run.stdout);
    assert.deepEqual(Object.keys(data).sort(), ['email', 'expires_at', 'invitation_url', 'role']);
    assert.equal(data.role, 'developer');

    const listed = await cli(['invitations', 'list', '--organization', org.id]);
    assert.equal(listed.code, 0, listed.stderr);
    const [header, row, ...more] = listed.stdout.trimEnd().split('\n');
    assert.match(header!, /^id\s+email\s+role\s+expires_at\s+created_at$/);
    assert.match(row!, /^inv_\S+\s+dev@json-club\.example\.org\s+developer\s+/);
    assert.deepEqual(more, []);
    assert.equal(listed.stdout.includes(data.invitation_url.split('/invitations/')[1]), false, 'no link');
  });

  test('a bad role or email exits 1 naming the field; an unknown organization exits 1 not_found', async () => {
    const org = await makeOrg('Strict Club');
    const role = await cli([
      'invitations',
      'create',
      '--organization',
      org.id,
      '--email',
      'a@example.org',
      '--role',
      'boss',
    ]);
    assert.equal(role.code, 1);
    assert.match(role.stderr, /^error validation_failed: /m);
    assert.match(role.stderr, /^ {2}role: must be one of: owner, admin, developer, viewer, checker$/m);
    const email = await cli([
      'invitations',
      'create',
      '--organization',
      org.id,
      '--email',
      'nope',
      '--role',
      'owner',
    ]);
    assert.equal(email.code, 1);
    assert.match(email.stderr, /^ {2}email: must be an email address/m);
    const unknown = await cli([
      'invitations',
      'create',
      '--organization',
      'org_ZZZZZZZZZZZZZZZZZZZZZZZZ',
      '--email',
      'a@example.org',
      '--role',
      'owner',
    ]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^error not_found: No such organization\.$/m);
  });

  test('usage errors exit 2; help lists the commands', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['invitations', 'create', '--email', 'a@example.org', '--role', 'owner'],
        /--organization is required/,
      ],
      [['invitations', 'create', '--organization', 'org_x', '--role', 'owner'], /--email is required/],
      [
        ['invitations', 'create', '--organization', 'org_x', '--email', 'a@example.org'],
        /--role is required/,
      ],
      [
        [
          'invitations',
          'create',
          '--organization',
          'org_a',
          '--org',
          'org_b',
          '--email',
          'a@b.co',
          '--role',
          'owner',
        ],
        /name different organizations/,
      ],
      [['invitations', 'list'], /--organization is required/],
      [['invitations', 'send'], /unknown invitations command "send"/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(args);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, message, args.join(' '));
      assert.equal(run.stdout, '');
    }
    const help = await cli(['help']);
    assert.equal(help.code, 0);
    assert.match(
      help.stdout,
      /^ {2}invitations create --organization <org_id> --email <email> --role owner\|admin\|developer\|viewer\|checker$/m,
    );
    assert.match(help.stdout, /^ {2}invitations list --organization <org_id>$/m);
  });
});
