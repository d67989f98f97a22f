// Runs every interop/test/**/*.test.mjs with node:test and fails when any test fails or when
// no test ran at all. Start it with `node --no-experimental-fetch` (npm test does): the flag
// reaches each test file's process, and e3kit-node loads on Node 20 only without fetch.
// Usage: node --no-experimental-fetch run-tests.mjs [filter-substring...]
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('./test/', import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(root, { recursive: true })
  .map(String)
  .filter((file) => file.endsWith('.test.mjs'))
  .map((file) => join(root, file))
  .filter((file) => filters.length === 0 || filters.some((f) => relative(root, file).includes(f)))
  .sort();

if (files.length === 0) {
  console.error(`no test files found under ${root}`);
  process.exit(1);
}
if (typeof globalThis.fetch === 'function') {
  console.error('run with `node --no-experimental-fetch` (e3kit-node needs it on Node 20)');
  process.exit(1);
}

let passed = 0;
let failed = 0;
const stream = run({ files, concurrency: true, timeout: 120_000 });
stream.on('test:pass', (event) => {
  if (event.details?.type !== 'suite') passed++;
});
stream.on('test:fail', (event) => {
  if (event.details?.type !== 'suite') failed++;
});
stream.compose(spec).pipe(process.stdout);
stream.on('close', () => {
  console.log(`\ninterop: ${passed} passed, ${failed} failed`);
  if (failed > 0 || passed === 0) {
    if (passed === 0) console.error('no tests ran');
    process.exitCode = 1;
  }
});
