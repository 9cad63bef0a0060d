// The browser the tests drive, from Debian's packages (never a downloaded browser): Debian's
// chromium-headless-shell, Chromium's old headless mode, when installed (.ci/run installs it):
// the same Blink for well under half the full browser's CPU in these tests
// (docs/decisions/tests-in-chromium-headless-shell.md). Else Debian's chromium; CHROMIUM_PATH
// picks another.
import { existsSync } from 'node:fs';

const SHELL = '/usr/bin/chromium-headless-shell';

export const CHROMIUM = process.env.CHROMIUM_PATH || (existsSync(SHELL) ? SHELL : '/usr/bin/chromium');

/** Every test browser's switches; a test adds its own after them. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
];
