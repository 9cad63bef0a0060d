// A node:test reporter for finding the suite's slow files: per test file, the sum of its top-level
// tests' and suites' durations (a suite's `before` hooks included; a file's top-level hooks and
// its process start are not), slowest first, then the total. Use beside the usual reporter:
//   node --import ./test/helpers/resolve-drizzle.ts --test --test-reporter=tap \
//     --test-reporter-destination=suite.tap --test-reporter=./scripts/file-times-reporter.mjs \
//     --test-reporter-destination=stdout "test/**/*.test.ts"
export default async function* fileTimes(source) {
  const byFile = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (nesting !== 0 || !file) continue;
    byFile.set(file, (byFile.get(file) ?? 0) + (details.duration_ms ?? 0));
  }
  const rows = [...byFile].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  const cwd = process.cwd();
  for (const [file, ms] of rows) {
    yield `${(ms / 1000).toFixed(1).padStart(8)} s  ${file.startsWith(cwd) ? file.slice(cwd.length + 1) : file}\n`;
  }
  yield `${(total / 1000).toFixed(1).padStart(8)} s  in ${rows.length} files\n`;
}
