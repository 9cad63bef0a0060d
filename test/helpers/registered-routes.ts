// The routes a host really serves, read from Fastify's public printRoutes(), so that suites keeping
// a table of routes can fail when a registered route is missing from their table.
import type { FastifyInstance } from 'fastify';

const LINE = /^((?:│ {3}| {4})*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/;

/**
 * Every "METHOD /path" under `prefix` (path parameters as `:name`), sorted. HEAD is left out: the
 * framework answers it for every GET route.
 */
export function registeredRoutes(host: FastifyInstance, prefix: string): string[] {
  const tree = host.printRoutes({ commonPrefix: false });
  const pathAtDepth: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    if (line.trim() === '') continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`unexpected printRoutes line: ${JSON.stringify(line)}`);
    const depth = match[1]!.length / 4;
    const path = (depth > 0 ? pathAtDepth[depth - 1]! : '') + match[2]!;
    pathAtDepth[depth] = path;
    pathAtDepth.length = depth + 1;
    for (const method of (match[3] ?? '').split(', ').filter(Boolean)) {
      if (method !== 'HEAD' && path.startsWith(prefix)) routes.push(`${method} ${path}`);
    }
  }
  return routes.sort();
}
