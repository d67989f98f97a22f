#!/usr/bin/env node
// Runs every compiled test file under dist/test with node:test and fails when any test fails
// or when no test ran at all (a glob that collects nothing must not pass silently).
// A full run also fails when no PostgreSQL test passed (files named *postgres*: the
// PostgreSQL tests must run on every machine, never be skipped for want of a server).
// Usage: node scripts/run-tests.js [filter-substring...]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const root = new URL('../dist/test/', import.meta.url).pathname;
const sources = new URL('../test/', import.meta.url).pathname;
const filters = process.argv.slice(2);
// The files that take longest (a full run's per-file times) start first, the rest in name order:
// the last file to start bounds the run's end, and a long one started last leaves the other
// slots idle while it finishes. A name missing from the list only changes the order.
const SLOWEST = [
  'reliability/crash.test.js',
  'http/e2e.test.js',
  'http/e2e-postgres.test.js',
  'log/served-log.test.js',
  'http/app-postgres.test.js',
  'unit/registry-postgres.test.js',
  'http/app.test.js',
  'http/app-json.test.js',
  'log/log-fork.test.js',
  'store/transfer-postgres.test.js',
  'reliability/store-faults.test.js',
  'http/e3kit-postgres.test.js',
  'http/e3kit.test.js',
  'unit/log-partials.test.js',
  'browser/page-hostile.test.js',
  'reliability/postgres-faults.test.js',
  'reliability/fuzz.test.js',
  'store/postgres.test.js',
  'unit/store-large.test.js',
];
const startRank = (file) => {
  const rank = SLOWEST.indexOf(relative(root, file));
  return rank === -1 ? SLOWEST.length : rank;
};
// tsc never removes what it compiled: a test whose source was deleted or renamed stays in dist and
// would keep running, so only files with a source under test/ count.
const files = readdirSync(root, { recursive: true })
  .map(String)
  .filter((file) => file.endsWith('.test.js'))
  .filter((file) => existsSync(join(sources, file.replace(/\.js$/, '.ts'))))
  .map((file) => join(root, file))
  .filter((file) => filters.length === 0 || filters.some((f) => relative(root, file).includes(f)))
  .sort((a, b) => startRank(a) - startRank(b) || a.localeCompare(b));

if (files.length === 0) {
  console.error(`no test files found under ${root}`);
  process.exit(1);
}

// One throwaway PostgreSQL for every file of the run that uses one (test/helpers/postgres.ts):
// each file makes its own databases on it, where a file run alone starts a server of its own
// (initdb and a start, seconds each). CARDS_TEST_DATABASE_URL, when set, names the server instead.
const usesPostgres = (file) =>
  /postgres/.test(relative(root, file)) ||
  /helpers\/postgres\.js|\/engines\.js/.test(readFileSync(file, 'utf8'));
if (files.filter(usesPostgres).length > 1 && !process.env.CARDS_TEST_DATABASE_URL) {
  const helper = new URL('../dist/test/helpers/postgres.js', import.meta.url);
  const { startOwnPostgres } = await import(helper.href);
  const postgres = await startOwnPostgres(); // stopped and removed when this process exits
  process.env.CARDS_TEST_DATABASE_URL = postgres.adminUrl;
}

let passed = 0;
let failed = 0;
let postgresPassed = 0;
// A file gets 10 minutes of wall-clock time, far more than any needs: the test host is a virtual
// machine its host can stop for minutes, and a file that really hangs still fails, by name. The
// limits inside the tests count running time only (test/helpers/awake.ts).
// One file more than there are CPUs (3 on 2): a file often waits on a timer, a child process or
// an fsync, and with two at a time the CPUs sat about a fifth idle.
const stream = run({ files, concurrency: availableParallelism() + 1, timeout: 600_000 });
stream.on('test:pass', (event) => {
  if (event.details?.type === 'suite') return;
  passed++;
  if (/postgres/.test(relative(root, event.file ?? ''))) postgresPassed++;
});
stream.on('test:fail', (event) => {
  if (event.details?.type !== 'suite') failed++;
});
stream.compose(spec).pipe(process.stdout);
stream.on('close', () => {
  if (failed > 0 || passed === 0) {
    console.error(`\n${passed} passed, ${failed} failed${passed === 0 ? ' (no tests ran)' : ''}`);
    process.exitCode = 1;
  }
  if (filters.length === 0 && postgresPassed === 0) {
    console.error('\nno PostgreSQL test passed: the PostgreSQL tests did not run');
    process.exitCode = 1;
  }
});
