/* global module */
// Module boundaries (docs/architecture.md), checked by `npm run lint` (scripts/check-boundaries.ts).
// A module is a folder directly under src/, its subfolders included; files directly in src/ are
// the composition root.
// Cycles between modules are found by the script: dependency-cruiser's folder scope counts a
// dependency on src/site/routes/x.ts as one on src/site/routes, not on src/site, and misses
// cycles through a module's subfolders or through root files.
//
// There is no baseline: any violation fails. A read that must carry another module's row in the
// same statement joins it through a function of that module (organizations/join-organization.ts).
/** Files platform may import: platform itself and, of the root, config.ts (with its schema) and context.ts. */
const PLUMBING = '^src/(platform/|config(-schema)?[.]ts$|context[.]ts$)';

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
