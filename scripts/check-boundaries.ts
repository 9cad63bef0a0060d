// Module boundaries, the last step of `npm run lint`: the rules of .dependency-cruiser.cjs, no
// import cycle between modules (moduleOf), and three rules read from the source, which imports do
// not show: no file but a schema file re-exports a table, no SQL text names another module's
// table, and no module reads another's AppContext field behind its imports' back. A module is a
// folder directly under src/ with its subfolders. Type-only imports count: they couple too.
// The context fields (no-foreign-context-field): a field belongs to the module whose file declares
// it (`declare module '../context.ts'`); those of context.ts are platform's, free to read. A read
// of a field (`x.f`, `x?.f`, `x['f']`, a destructured `{ f }`, x of a type holding AppContext's f,
// found by the compiler: context-field-reads.ts) is allowed in its owner's files; in a module that
// imports the owner, directly or through other modules (the edges of the cycle check), since the
// read then couples it no more than its imports do; and in a root file other than config.ts,
// config-schema.ts and context.ts (service.ts, hosts.ts, main.ts...), which builds and wires the
// modules and may import any. Anywhere else it is refused, platform/ included.
// Exits 1 on any violation. `node scripts/check-boundaries.ts [dir]` checks dir/src (default .).
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ICruiseResult, IForbiddenRuleType } from 'dependency-cruiser';
import { contextFieldReads } from './context-field-reads.ts';

export const MODULE_CYCLE_RULE = 'no-module-cycles';
export const TABLE_REEXPORT_RULE = 'no-table-reexports';
export const FOREIGN_SQL_RULE = 'no-foreign-table-sql';
export const CONTEXT_FIELD_RULE = 'no-foreign-context-field';

export interface BoundaryViolation {
  rule: string;
  from: string;
  to: string;
  /** for a cycle: the modules around it and one import for each step */
  cycle?: string[];
}

const load = createRequire(import.meta.url);
const config = load('../.dependency-cruiser.cjs') as { forbidden: IForbiddenRuleType[] };

/** The root files that count in platform: the configuration's (config-*.ts with it) and context.ts. */
const CONFIG_FILES = [
  'src/config.ts',
  'src/config-schema.ts',
  'src/config-payments.ts',
  'src/config-error.ts',
  'src/config-schema-parts.ts',
  'src/context.ts',
];

/** The payment methods' live settings, which the configuration composes (.dependency-cruiser.cjs). */
const METHOD_SETTINGS = /^src\/payments\/methods\/((method-)?settings|[a-z0-9_]+\/[a-z0-9_]+-settings)[.]ts$/;

/**
 * The module a file counts in for cycles: src/<name> for a file under src/<name>/. Of the root,
 * config.ts (with its config-*.ts files) and context.ts count in platform (the plumbing they belong
 * with, which may import them), as do the payment methods' settings files the configuration reads;
 * any other root file stands alone.
 */
export function moduleOf(path: string): string {
  if (CONFIG_FILES.includes(path) || METHOD_SETTINGS.test(path)) return 'src/platform';
  const match = /^src\/([^/]+)\//.exec(path);
  return match ? `src/${match[1]}` : path;
}

const isSchema = (path: string) => path.endsWith('.schema.ts');

/** Every violation of the boundaries in `baseDir`/src. */
export async function checkBoundaries(baseDir: string): Promise<BoundaryViolation[]> {
  // Imported when used: dependency-cruiser's modules have top-level await, and the test workers
  // require() this module (docs/decisions/tests-in-worker-processes.md).
  const { cruise } = await import('dependency-cruiser');
  const { output } = await cruise(['src'], {
    baseDir: resolve(baseDir),
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
  });
  const result = (typeof output === 'string' ? JSON.parse(output) : output) as ICruiseResult;
  const violations: BoundaryViolation[] = result.summary.violations
    .filter((v) => v.rule.severity !== 'ignore')
    .map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
  const edges = moduleEdges(result);
  const files = await sourceFiles(resolve(baseDir));
  return [
    ...violations,
    ...moduleCycles(edges),
    ...sourceViolations(files),
    ...foreignContextFields(resolve(baseDir), [...files.keys()], edges),
  ];
}

/** src/ files of `baseDir`, relative to it, with their text. */
async function sourceFiles(baseDir: string): Promise<Map<string, string>> {
  const entries = await readdir(join(baseDir, 'src'), { recursive: true, withFileTypes: true });
  const files = new Map<string, string>();
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(baseDir, path).split('\\').join('/'), await readFile(path, 'utf8'));
  }
  return files;
}

const TABLE = /export\s+const\s+(\w+)\s*=\s*pgTable\(\s*['"](\w+)['"]/g;
const FROM_SCHEMA = /(import|export)\s+(?:type\s+)?(\*|\{([^}]*)\})\s*from\s*['"]([^'"]+[.]schema[.]ts)['"]/g;
const LOCAL_EXPORT = /export\s*\{([^}]*)\}\s*;/g;
// The text of sql`...` templates and of .unsafe(`...`) / .unsafe('...') statements.
const SQL_TEXT = /\bsql`([^`]*)`|[.]unsafe\(\s*(?:`([^`]*)`|'([^']*)')/g;
const TABLE_NAMED = /\b(?:from|join|update|into|table)\s+"?(\w+)"?/gi;

/** The names in `{ a, type b, c as d }`, as imported or exported (the first name of each). */
const namesIn = (list: string) =>
  list
    .split(',')
    .map(
      (part) =>
        part
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0]!,
    )
    .filter(Boolean);

/** Table re-exports from non-schema files, and SQL text naming another module's tables. */
function sourceViolations(files: Map<string, string>): BoundaryViolation[] {
  const tablesOf = new Map<string, Set<string>>(); // schema file -> its tables' constants
  const ownerOf = new Map<string, string>(); // SQL table name -> module
  for (const [path, text] of files) {
    if (!isSchema(path)) continue;
    const names = new Set<string>();
    for (const [, name, table] of text.matchAll(TABLE)) {
      names.add(name!);
      ownerOf.set(table!, moduleOf(path));
    }
    tablesOf.set(path, names);
  }
  const violations: BoundaryViolation[] = [];
  for (const [path, text] of files) {
    if (isSchema(path) || path === 'src/db-schema.ts') continue;
    const imported = new Set<string>();
    for (const [, kind, all, list, target] of text.matchAll(FROM_SCHEMA)) {
      const schema = join(dirname(path), target!).split('\\').join('/');
      const tables = tablesOf.get(schema) ?? new Set<string>();
      const named = all === '*' ? [...tables] : namesIn(list ?? '').filter((n) => tables.has(n));
      if (kind === 'import') named.forEach((n) => imported.add(n));
      else if (named.length > 0) violations.push({ rule: TABLE_REEXPORT_RULE, from: path, to: schema });
    }
    for (const [, list] of text.matchAll(LOCAL_EXPORT)) {
      for (const name of namesIn(list!).filter((n) => imported.has(n)))
        violations.push({ rule: TABLE_REEXPORT_RULE, from: path, to: name });
    }
    for (const match of text.matchAll(SQL_TEXT)) {
      const statement = match[1] ?? match[2] ?? match[3] ?? '';
      for (const [, table] of statement.matchAll(TABLE_NAMED)) {
        const owner = ownerOf.get(table!);
        if (owner && owner !== moduleOf(path))
          violations.push({ rule: FOREIGN_SQL_RULE, from: path, to: `${table} (${owner})` });
      }
    }
  }
  return violations;
}

/**
 * Reads of a module's AppContext field from outside it that no import declares (the header says
 * which are allowed).
 */
function foreignContextFields(baseDir: string, paths: string[], edges: ModuleEdges): BoundaryViolation[] {
  return contextFieldReads(baseDir, paths)
    .filter(({ path, declaredIn }) => {
      const [reader, owner] = [moduleOf(path), moduleOf(declaredIn)];
      return reader !== path && reader !== owner && !reaches(edges, reader, owner);
    })
    .map(({ path, line, field, declaredIn }) => ({
      rule: CONTEXT_FIELD_RULE,
      from: `${path}:${line}`,
      to: `${field} (${moduleOf(declaredIn)})`,
    }));
}

/** Whether module `from` imports module `to`, directly or through others. */
function reaches(edges: ModuleEdges, from: string, to: string): boolean {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length > 0) {
    for (const next of edges.get(queue.shift()!)?.keys() ?? []) {
      if (next === to) return true;
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return false;
}

/** module -> module it imports -> one file import that makes the edge */
type ModuleEdges = Map<string, Map<string, string>>;

function moduleEdges(result: ICruiseResult): ModuleEdges {
  const edges: ModuleEdges = new Map();
  for (const file of result.modules) {
    for (const dependency of file.dependencies) {
      const [from, to] = [moduleOf(file.source), moduleOf(dependency.resolved)];
      if (from === to || dependency.couldNotResolve || !dependency.resolved.startsWith('src/')) continue;
      // A foreign key's declaration (schema file to schema file) couples tables, not modules: a
      // table may point at a higher module's (orders at checkout sessions).
      if (isSchema(file.source) && isSchema(dependency.resolved)) continue;
      const targets = edges.get(from) ?? new Map<string, string>();
      if (!targets.has(to)) targets.set(to, `${file.source} -> ${dependency.resolved}`);
      edges.set(from, targets);
    }
  }
  return edges;
}

/** One violation per group of modules that reach each other, with one cycle through it. */
function moduleCycles(edges: ModuleEdges): BoundaryViolation[] {
  const violations: BoundaryViolation[] = [];
  for (const group of stronglyConnected(edges)) {
    if (group.length < 2) continue;
    const start = group.sort()[0]!;
    const path = shortestCycle(edges, start, new Set(group));
    violations.push({
      rule: MODULE_CYCLE_RULE,
      from: path[0]!,
      to: path[1]!,
      cycle: path
        .slice(0, -1)
        .map((from, i) => `${from} -> ${path[i + 1]} (${edges.get(from)!.get(path[i + 1]!)})`),
    });
  }
  return violations;
}

/** Tarjan's strongly connected components. */
function stronglyConnected(edges: ModuleEdges): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      groups.push(group);
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return groups;
}

/** The shortest path from `start` back to itself within `group` (breadth first). */
function shortestCycle(edges: ModuleEdges, start: string, group: Set<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!group.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

export function formatViolation(v: BoundaryViolation): string {
  const head = `${v.rule}: ${v.from} -> ${v.to}`;
  return v.cycle ? [head, ...v.cycle.map((step) => `  ${step}`)].join('\n') : head;
}

async function main(): Promise<void> {
  const violations = await checkBoundaries(process.argv[2] ?? '.');
  for (const v of violations) console.error(formatViolation(v));
  if (violations.length > 0) {
    console.error(`module boundaries: ${violations.length} violation(s)`);
    process.exitCode = 1;
  } else {
    console.log('module boundaries: no violations');
  }
}

// Not awaited at the top: a module with top-level await cannot be require()d, and the test
// workers load each test file, and the modules it imports, with require.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) void main();
