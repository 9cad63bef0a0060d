// `npm run sdk:branch`: makes, or moves forward, the local branch `sdk` whose root is packages/sdk
// as of HEAD, so that `npm install git+https://<host>/<repo>.git#sdk` installs the SDK. npm installs
// a git repository's root and cannot pick one of its folders (docs/decisions/sdk-install.md).
// `git subtree split` rewrites the SDK's own commits the same way on every run and in every clone,
// so the branch only moves forward and two maintainers who run it make the same commits.
import { spawnSync } from 'node:child_process';

const PREFIX = 'packages/sdk';
const BRANCH = 'sdk';

function git(args: string[], cwd: string): { ok: boolean; out: string; err: string } {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8' });
  return { ok: result.status === 0, out: result.stdout.trim(), err: result.stderr.trim() };
}

function fail(message: string): never {
  console.error(`sdk:branch: ${message}`);
  process.exit(1);
}

const top = git(['rev-parse', '--show-toplevel'], process.cwd());
if (!top.ok) fail(`not inside a git repository: ${top.err}`);
const root = top.out;

// Without git-subtree (a separate package on some systems) git answers "not a git command".
if (git(['subtree', '-h'], root).err.includes('not a git command')) {
  fail('git subtree is not installed (it ships with git; some systems package it as git-subtree)');
}
if (!git(['cat-file', '-e', `HEAD:${PREFIX}/package.json`], root).ok) {
  fail(`HEAD has no ${PREFIX}/package.json`);
}

const before = git(['rev-parse', '--verify', '--quiet', `refs/heads/${BRANCH}`], root).out;
const split = git(['subtree', 'split', '-q', `--prefix=${PREFIX}`, `--branch=${BRANCH}`, 'HEAD'], root);
// subtree refuses to move an existing branch that is not an ancestor of the new split.
if (!split.ok) fail(split.err || 'git subtree split failed');
const after = git(['rev-parse', `refs/heads/${BRANCH}`], root).out;
const head = git(['rev-parse', '--short', 'HEAD'], root).out;
const version = (JSON.parse(git(['show', `HEAD:${PREFIX}/package.json`], root).out) as { version: string })
  .version;

const moved =
  before === '' ? 'made' : before === after ? 'already at' : `moved from ${before.slice(0, 12)} to`;
console.log(`${BRANCH} ${moved} ${after.slice(0, 12)}: ${PREFIX} of ${head}`);
console.log(`Publish it:   git push <remote> ${BRANCH}`);
console.log(`For release:  git tag sdk-v${version} ${BRANCH} && git push <remote> sdk-v${version}`);
console.log(`Install with: npm install git+https://<host>/<repo>.git#sdk-v${version}`);
