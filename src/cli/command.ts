// What every CLI command is made of: its shape, the usage error, the option kinds, and the helpers
// that build a request body from --file and flags.
import type { ParseArgsOptionsConfig } from 'node:util';
import type { AdminClient } from './admin-client.ts';

export type Data = Record<string, unknown>;
export type Values = Record<string, string | boolean | string[] | undefined>;

export class UsageError extends Error {}

export interface Command {
  name: string;
  usage: string;
  options?: ParseArgsOptionsConfig;
  /** name of the one positional argument (an id), when the command takes one */
  id?: string;
  run(api: AdminClient, args: { id: string; values: Values; readFile: (p: string) => string }): Promise<Data>;
  render(data: Data): string;
}

export const str = { type: 'string' } as const;
export const list = { type: 'string', multiple: true } as const;
export const flag = { type: 'boolean' } as const;
export const enc = encodeURIComponent;

function readJsonObject(path: string, readFile: (p: string) => string): Data {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFile(path));
  } catch (error) {
    throw new UsageError(
      `cannot read ${path === '-' ? 'standard input' : path} as JSON: ${(error as Error).message}`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`${path} must hold a JSON object`);
  }
  return parsed as Data;
}

export function booleanFlag(name: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'yes') return true;
  if (value === 'false' || value === 'no') return false;
  throw new UsageError(`--${name} takes true or false, got "${String(value)}"`);
}

/** The body of a create/update: --file first, then the flags given, then a check it says something. */
export function bodyOf(values: Values, readFile: (p: string) => string, fields: Data): Data {
  const body = typeof values.file === 'string' ? readJsonObject(values.file, readFile) : {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) body[key] = value;
  return body;
}

export function requireFlags(values: Values, names: string[]): void {
  for (const name of names) {
    if (values[name] === undefined) throw new UsageError(`--${name} is required`);
  }
}

export function requireSomething(body: Data): void {
  if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give at least one option');
}
