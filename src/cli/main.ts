#!/usr/bin/env node
// Entry point of the admin CLI (`npm run cli -- <command>`, the package's `ticketing` bin).
import { runCli } from './cli.ts';

process.exitCode = await runCli(process.argv.slice(2));
