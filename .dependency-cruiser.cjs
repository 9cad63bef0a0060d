/* global module, process, __dirname */
// Module boundaries (docs/architecture.md), checked by `npm run lint` (scripts/check-boundaries.ts).
// A module is a folder directly under src/, its subfolders included; files directly in src/ are
// the composition root.
// Cycles between modules are found by the script: dependency-cruiser's folder scope counts a
// dependency on src/site/routes/x.ts as one on src/site/routes, not on src/site, and misses
// cycles through a module's subfolders or through root files.
//
// There is no baseline: any violation fails. A read that must carry another module's row in the
// same statement joins it through a function of that module (organizations/join-organization.ts).
/**
 * The payment methods' live settings, which the configuration composes: the list
 * (payments/methods/settings.ts), its type (method-settings.ts) and each method's <key>-settings.ts.
 * Plain configuration: they count as plumbing and import nothing else, so no adapter loads with it.
 */
const METHOD_SETTINGS = 'src/payments/methods/((method-)?settings|[a-z0-9_]+/[a-z0-9_]+-settings)[.]ts$';
/** Files platform may import: platform itself, the methods' settings and, of the root, config.ts (with its config-*.ts files) and context.ts. */
const PLUMBING = `^(src/(platform/|config(-schema|-schema-parts|-payments|-error)?[.]ts$|context[.]ts$)|${METHOD_SETTINGS})`;

/**
 * The src/ files esbuild bundles into the browser scripts: those web/ imports, and what they import
 * in turn. Through an entry file they would carry their module's server side (database, Node
 * built-ins) into the page, so they import each other directly.
 */
function browserShared() {
  const fs = process.getBuiltinModule('node:fs');
  const path = process.getBuiltinModule('node:path');
  const IMPORT = /\b(?:from|import)\s*['"]([.][^'"]+)['"]/g;
  const pending = fs
    .readdirSync(path.join(__dirname, 'web'), { recursive: true })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.join(__dirname, 'web', file));
  const seen = new Set();
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file) || !fs.existsSync(file)) continue;
    seen.add(file);
    for (const [, specifier] of fs.readFileSync(file, 'utf8').matchAll(IMPORT))
      pending.push(path.resolve(path.dirname(file), specifier));
  }
  return [...seen]
    .map((file) => path.relative(__dirname, file).split(path.sep).join('/'))
    .filter((file) => file.startsWith('src/'))
    .map((file) => `^${file.replaceAll('.', '[.]')}$`);
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'platform-imports-no-module',
      comment:
        'platform/ is the plumbing and knows no feature module; config.ts and context.ts, which it may ' +
        'import, import no feature module either.',
      severity: 'error',
      from: { path: PLUMBING },
      to: { path: '^src/', pathNot: PLUMBING },
    },
    {
      name: 'no-foreign-schema-imports',
      comment:
        "A module reads and writes another module's tables only through the functions that module " +
        'exports. Schema files may import other schema files (foreign keys); src/db-schema.ts ' +
        'gathers every table for drizzle-kit.',
      severity: 'error',
      from: { path: '^src/([^/]+)', pathNot: '([.]schema[.]ts|^src/db-schema[.]ts)$' },
      to: { path: '^src/[^/]+/.+[.]schema[.]ts$', pathNot: '^src/$1/' },
    },
    {
      name: 'only-entry-files',
      comment:
        'A module is used through its entry file, src/<module>/index.ts, which re-exports what others ' +
        'may use; its other files are its own. Root files go through entry files too. Outside the ' +
        "rule: another module's schema files (a schema file may import them for a foreign key or a " +
        'shared limit, any other file may not: no-foreign-schema-imports); config.ts, its ' +
        "config-*.ts files, context.ts and the payment methods' settings, which count in platform " +
        "and import platform's files; the " +
        'files the browser scripts bundle (browserShared); test/, scripts/ and bench/, which may reach ' +
        "a module's inside.",
      severity: 'error',
      from: {
        path: '^src/([^/]+)',
        pathNot: [
          '^src/(config(-schema|-schema-parts|-payments|-error)?|context)[.]ts$',
          `^${METHOD_SETTINGS}`,
          ...browserShared(),
        ],
      },
      to: { path: '^src/[^/]+/', pathNot: '^src/$1/|^src/[^/]+/index[.]ts$|[.]schema[.]ts$' },
    },
    {
      name: 'no-db-schema-imports',
      comment:
        'src/db-schema.ts gathers every table for drizzle-kit and the migrations; a module that ' +
        "imported it would reach every other module's tables around their functions.",
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/db-schema[.]ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // type-only imports couple modules too
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
