// Runs every interop/test/**/*.test.mjs with node:test and fails when any test fails or when
// no test ran at all. e3kit-node loads on Node 20 only without the built-in fetch, and
// playwright-core (which drives Chromium for the files named *browser*) only with it: the
// files run in two groups, the first with `--no-experimental-fetch` in NODE_OPTIONS, which
// each test file's process inherits, the browser files after it without.
// Usage: node run-tests.mjs [filter-substring...]
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
if (process.execArgv.includes('--no-experimental-fetch')) {
  console.error('run without --no-experimental-fetch: the browser tests need fetch');
  process.exit(1);
}
const nodeOptions = process.env.NODE_OPTIONS ?? '';
const groups = [
  {
    files: files.filter((file) => !/browser/.test(relative(root, file))),
    nodeOptions: `${nodeOptions} --no-experimental-fetch`.trim(),
  },
  { files: files.filter((file) => /browser/.test(relative(root, file))), nodeOptions },
].filter((group) => group.files.length > 0);

// Two passes: the servers on JSON store files, then on a throwaway PostgreSQL (the stock
// clients must not tell the engines apart). PostgreSQL comes from CARDS_TEST_DATABASE_URL
// or the machine's binaries (the project's test helper); without it the second pass is
// skipped with a line saying so, and under CI=true that fails the run.
const engines = [{ name: 'JSON store', env: {} }];
let postgres;
try {
  const helper = new URL('../dist/test/helpers/postgres.js', import.meta.url);
  const { testPostgres } = await import(helper.href);
  postgres = await testPostgres();
  engines.push({
    name: 'PostgreSQL',
    env: { CARDS_INTEROP_STORE: 'postgres', CARDS_TEST_DATABASE_URL: postgres.adminUrl },
  });
} catch (err) {
  const why = `interop on PostgreSQL skipped: ${err.message.split('\n')[0]}`;
  if (process.env.CI) {
    console.error(`${why} (CI=true: failing)`);
    process.exitCode = 1;
  } else console.error(why);
}

let passed = 0;
let failed = 0;
for (const engine of engines) {
  Object.assign(process.env, engine.env); // each test file's process inherits it
  console.log(`\n# interop against cards serve on the ${engine.name}`);
  for (const group of groups) {
    process.env.NODE_OPTIONS = group.nodeOptions; // read by each test file's process as it starts
    const stream = run({ files: group.files, concurrency: true, timeout: 120_000 });
    stream.on('test:pass', (event) => {
      if (event.details?.type !== 'suite') passed++;
    });
    stream.on('test:fail', (event) => {
      if (event.details?.type !== 'suite') failed++;
    });
    await new Promise((resolve) => {
      stream.compose(spec).pipe(process.stdout);
      stream.on('close', resolve);
    });
  }
}
postgres?.destroy?.();
console.log(
  `\ninterop: ${passed} passed, ${failed} failed (${engines.map((e) => e.name).join(' and ')})`,
);
if (failed > 0 || passed === 0) {
  if (passed === 0) console.error('no tests ran');
  process.exitCode = 1;
}
