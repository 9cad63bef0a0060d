// `ticketing env`: the running service's URLs and the demo API client's credentials as shell
// `export` lines, for `eval "$(npm run -s cli -- env)"`, the first step of the partner quick start.
// The URLs and DATA_DIR come through the service's own configuration schema, so the lines name the
// service this environment starts; the credentials come from DATA_DIR/demo.json, which the first
// start writes. docs/decisions/cli-env.md says why these variables and not others.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, readVariable } from '../../config.ts';

export const ENV_USAGE = 'env';

interface EnvIo {
  env: NodeJS.ProcessEnv;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** One word for a POSIX shell: single quotes, each quote inside closed, escaped and reopened. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The demo client's credentials from demo.json, or a one-line reason they cannot be read. */
function readDemo(file: string): Record<string, string> | string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    return code === 'ENOENT'
      ? `${file} does not exist yet: start the service once with \`npm start\` (the same DATA_DIR), which writes it`
      : `cannot read ${file}: ${(error as Error).message}`;
  }
  let demo: Record<string, unknown> | null;
  try {
    demo = JSON.parse(text) as Record<string, unknown> | null;
  } catch {
    return `${file} is not JSON: remove it and the database beside it, then \`npm start\` seeds a new demo`;
  }
  const fields = {
    CLIENT_ID: 'client_id',
    CLIENT_SECRET: 'client_secret',
    PUBLISHABLE_KEY: 'publishable_key',
  };
  const values: Record<string, string> = {};
  for (const [name, field] of Object.entries(fields)) {
    const value = demo?.[field];
    if (typeof value !== 'string' || value === '') return `${file} has no ${field}`;
    values[name] = value;
  }
  return values;
}

/** Prints the export lines; 0 done, 1 no demo credentials yet, 2 usage or configuration error. */
export function runEnv(args: string[], io: EnvIo): number {
  if (args.length > 0) {
    io.stderr(`error: env takes no argument, got "${args.join(' ')}"\nUsage: ticketing ${ENV_USAGE}\n`);
    return 2;
  }
  let urls: { API_URL: string; SITE_URL: string; APP_URL: string };
  let dataDir: string;
  try {
    urls = {
      API_URL: new URL(readVariable('API_URL', io.env)).origin,
      SITE_URL: new URL(readVariable('SITE_URL', io.env)).origin,
      APP_URL: new URL(readVariable('APP_URL', io.env)).origin,
    };
    dataDir = readVariable('DATA_DIR', io.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr(`error: ${error.message}\n`);
    return 2;
  }
  if (dataDir.startsWith('memory://')) {
    io.stderr('error: DATA_DIR=memory:// keeps no demo.json: start the service with a DATA_DIR folder\n');
    return 1;
  }
  // Absolute, so that the exported DATA_DIR still names the folder after a `cd`.
  const absoluteDataDir = resolve(dataDir);
  const demo = readDemo(join(absoluteDataDir, 'demo.json'));
  if (typeof demo === 'string') {
    io.stderr(`error: ${demo}\n`);
    return 1;
  }
  const lines = Object.entries({ ...urls, DATA_DIR: absoluteDataDir, ...demo }).map(
    ([name, value]) => `export ${name}=${shellQuote(value)}`,
  );
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}
