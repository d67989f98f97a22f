// `npm run bench [-- --quick] [-- --json FILE]`: installs the bench's own dependencies when
// they are missing (bench/package.json, its own lock), runs every benchmark against the built
// code (the root script builds first) and prints one table. Never part of `npm test`.
//   --quick      a smaller, shorter pass (20,000 stored cards, 1 s runs): about two minutes
//   --json FILE  also write every round's raw figures to FILE
//   --admin      only the admin API and page rows (admin.mjs; 5 rounds, --quick 3)
//   --log        only the transparency log's rows (log-serve.mjs; 10^6 logged cards, --quick 10^5)
//   --startup    only start-up with 100,000 cards (startup.mjs; --quick 20,000), this build
//                against B_ROOT's when set
//   --ab         only the JSON engine's start-up and create into 100,000 cards (ab-create.mjs;
//                --quick 20,000), this build against B_ROOT's when set
//   --e3kit      only e3kit's backend: Keyknox pulls and pushes, brainkeys, gets beside them
//                (e3kit.mjs; 5 s runs, --quick 2 s)
//   --http       only the request path's ratios (http-ab.mjs; B_ROOT=<a built checkout> adds the
//                A/B rows of get, search and history against that build)
// BENCH_CARDS_BIN=/other/checkout/bin/cards.js measures another build's server and CLI.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { linkSelf } from './lib/link-self.mjs';

const bench = new URL('.', import.meta.url).pathname;
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    json: { type: 'string' },
    admin: { type: 'boolean', default: false },
    log: { type: 'boolean', default: false },
    startup: { type: 'boolean', default: false },
    ab: { type: 'boolean', default: false },
    http: { type: 'boolean', default: false },
    e3kit: { type: 'boolean', default: false },
  },
});

if (!existsSync(new URL('node_modules/autocannon/package.json', import.meta.url))) {
  process.stderr.write('installing the bench dependencies (npm ci --prefix bench)…\n');
  execFileSync('npm', ['ci', '--prefix', bench, '--no-audit', '--no-fund'], { stdio: 'inherit' });
}
linkSelf();
if (!existsSync(new URL('../dist/src/index.js', import.meta.url))) {
  process.stderr.write('dist/ is missing: run `npm run build` first (npm run bench does).\n');
  process.exit(1);
}

// The parts that also run alone (one flag each): module, its run and format functions, and the
// options of a quick and a full pass.
const PARTS = {
  admin: {
    module: './admin.mjs',
    run: 'runAdminBench',
    format: 'formatAdmin',
    quick: { storeSize: 20_000, seconds: 2, rounds: 3 },
    full: { storeSize: 100_000, seconds: 5, rounds: 5 },
  },
  startup: {
    module: './startup.mjs',
    run: 'runStartupBench',
    format: 'formatStartup',
    quick: { storeSize: 20_000, rounds: 5 },
    full: { storeSize: 100_000, rounds: 7 },
  },
  ab: {
    module: './ab-create.mjs',
    run: 'runCreateAb',
    format: 'formatCreateAb',
    quick: { storeSize: 20_000, rounds: 3, seconds: 1 },
    full: { storeSize: 100_000, rounds: 5, seconds: 3 },
  },
  e3kit: {
    module: './e3kit.mjs',
    run: 'runE3kitBench',
    format: 'formatE3kit',
    quick: { seconds: 2 },
    full: { seconds: 5 },
  },
  http: {
    module: './http-ab.mjs',
    run: 'runHttpBench',
    format: 'formatHttp',
    quick: { quick: true },
    full: {},
  },
};
for (const [flag, part] of Object.entries(PARTS)) {
  if (!values[flag]) continue;
  const module = await import(part.module);
  const { removeTempDirs } = await import('./lib/stores.mjs');
  const out = await module[part.run](values.quick ? part.quick : part.full).finally(removeTempDirs);
  console.log(module[part.format](out));
  if (values.json) writeFileSync(values.json, `${JSON.stringify(out, null, 2)}\n`);
  process.exit(0);
}

const httpRows = async () => {
  const { formatHttp, runHttpBench } = await import('./http-ab.mjs');
  const figures = await runHttpBench({ quick: values.quick });
  return { figures, text: formatHttp(figures) };
};
const logRows = async () => {
  const { formatLog, runLogBench } = await import('./log-serve.mjs');
  const rows = await runLogBench(values.quick ? 100_000 : 1_000_000);
  return { rows, text: `transparency log\n${formatLog(rows)}` };
};
if (values.log) {
  const { removeTempDirs } = await import('./lib/stores.mjs');
  const { rows, text } = await logRows().finally(removeTempDirs);
  console.log(text);
  if (values.json) writeFileSync(values.json, `${JSON.stringify(rows, null, 2)}\n`);
  process.exit(0);
}

const { CONFIGS, runSuite } = await import('./suite.mjs');
const { removeTempDirs } = await import('./lib/stores.mjs');
// Ctrl-C reaches the servers too (same process group); leave no temporary stores behind.
for (const signal of ['SIGINT', 'SIGTERM'])
  process.once(signal, () => {
    removeTempDirs();
    process.exit(130);
  });
const { formatTable } = await import('./report.mjs');

// A failed run (a server that does not start, a crash) leaves no temporary stores either.
process.once('exit', removeTempDirs);
const result = await runSuite(values.quick ? CONFIGS.quick : CONFIGS.full);
const { machine, config, summary } = result;
const [low, high] = summary.loadAverage.map((x) => x.toFixed(1));
console.log(
  `cards benchmarks${values.quick ? ' (--quick)' : ''}: ${machine.nproc} × ${machine.cpu}, ` +
    `node ${machine.node}; medians of ${config.rounds} rounds of ${config.seconds} s runs; ` +
    `load average ${low}–${high}; CPU steal ${Math.round(summary.steal * 100)}%; ` +
    `disk write+fdatasync ${summary.fsyncMs.toFixed(2)} ms; ` +
    `${Math.round(result.totalSeconds)} s in all`,
);
console.log(formatTable(result));
if (result.summary.failures > 0)
  console.log(
    `\nWARNING: ${result.summary.failures} cards requests did not answer 2xx; see --json output.`,
  );

// PostgreSQL rows, in the same run: bench/postgres.mjs (also runnable alone).
const { formatPostgres, runPostgresBench } = await import('./postgres.mjs');
result.postgres = await runPostgresBench(
  values.quick ? { storeSize: 20_000, seconds: 2 } : { storeSize: 100_000, seconds: 3 },
);
console.log(`\n${formatPostgres(result.postgres)}`);
// The transparency log's rows, last.
const log = await logRows();
result.log = log.rows;
console.log(`\n${log.text}`);
// e3kit's backend (same run).
const { formatE3kit, runE3kitBench } = await import('./e3kit.mjs');
result.e3kit = await runE3kitBench({ seconds: values.quick ? 2 : 5 });
console.log(`\n${formatE3kit(result.e3kit)}`);
// The request path's ratios (same run), where wrk is installed.
const { hasWrk } = await import('./lib/load.mjs');
if (hasWrk()) {
  const http = await httpRows();
  result.http = http.figures;
  console.log(`\n${http.text}`);
} else console.log('\nthe request path: skipped (needs wrk: apt-get install wrk)');
removeTempDirs();
if (values.json) writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
