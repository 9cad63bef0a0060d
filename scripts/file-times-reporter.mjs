// A node:test reporter for finding the suite's slow files: per test file, the sum of its top-level
// tests' and suites' durations (a suite's `before` hooks included; a file's top-level hooks and
// its process start are not, when files are run directly), slowest first, then the total. Use
// beside the usual reporter:
//   npm test -- --test-reporter=spec --test-reporter-destination=stdout \
//     --test-reporter=./scripts/file-times-reporter.mjs --test-reporter-destination=times.txt
export default async function* fileTimes(source) {
  const byFile = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, name, nesting, details } = event.data;
    if (nesting !== 0 || !file) continue;
    // Under npm test's workers each file is one suite named by its path.
    const key = name.endsWith('.test.ts') ? name : file;
    byFile.set(key, (byFile.get(key) ?? 0) + (details.duration_ms ?? 0));
  }
  const rows = [...byFile].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  const cwd = process.cwd();
  for (const [file, ms] of rows) {
    yield `${(ms / 1000).toFixed(1).padStart(8)} s  ${file.startsWith(cwd) ? file.slice(cwd.length + 1) : file}\n`;
  }
  yield `${(total / 1000).toFixed(1).padStart(8)} s  in ${rows.length} files\n`;
}
