// The defaults the CLI falls back on without loading the service's configuration schema are the
// schema's own: a change to one must be made to the other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_API_URL, DEFAULT_APP_URL, DEFAULT_DATA_DIR } from '../../src/cli/cli-defaults.ts';
import { readVariable } from '../../src/config.ts';

test("the CLI's DATA_DIR, API_URL and APP_URL defaults are the service's", () => {
  assert.equal(DEFAULT_DATA_DIR, readVariable('DATA_DIR', {}));
  assert.equal(DEFAULT_API_URL, readVariable('API_URL', {}));
  assert.equal(DEFAULT_APP_URL, readVariable('APP_URL', {}));
});
