// The service's defaults the CLI falls back on (DATA_DIR, API_URL, APP_URL), written out here so
// that a command loads no configuration schema: loading it was most of a command's start-up time.
// A test holds them equal to the schema's (test/cli/cli-defaults.test.ts).
import { join } from 'node:path';

export const DEFAULT_DATA_DIR = '.data';
export const DEFAULT_API_URL = 'http://127.0.0.1:4000';
export const DEFAULT_APP_URL = 'http://127.0.0.1:4002';

/** DATA_DIR as the service reads it: the variable when set, else its default. */
function dataDirOf(env: NodeJS.ProcessEnv): string {
  return env.DATA_DIR ?? DEFAULT_DATA_DIR;
}

/** Where the demo's first start writes its credentials. */
export function demoFileOf(env: NodeJS.ProcessEnv): string {
  return join(dataDirOf(env), 'demo.json');
}
